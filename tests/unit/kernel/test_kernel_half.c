/*
 * Half-precision buffers: the bfloat16/float16 conversions (hand-checked
 * bit patterns, ties to even, overflow, subnormals, NaN) and the harness's
 * handling of half buffers on the CPU double: inputs rounded before the
 * reference sees them, 16-bit NaN poison, guards after an odd element
 * count, checksums and re-validation.
 */
#include "unit.h"
#include "device.h"
#include "half.h"
#include "harness.h"
#include "spec.h"

#include <math.h>

static void test_bf16_known_values(void **state)
{
	(void)state;
	assert_int_equal(sc_bf16_from_f32(1.0f), 0x3f80);
	assert_int_equal(sc_bf16_from_f32(-2.5f), 0xc020);
	assert_int_equal(sc_bf16_from_f32(0.0f), 0x0000);
	assert_int_equal(sc_bf16_from_f32(-0.0f), 0x8000);
	/* 1 + 2^-8 lies halfway between 1 (0x3f80) and 1 + 2^-7 (0x3f81): even wins */
	assert_int_equal(sc_bf16_from_f32(1.00390625f), 0x3f80);
	/* 1 + 3*2^-8 lies halfway between 0x3f81 and 0x3f82: even wins */
	assert_int_equal(sc_bf16_from_f32(1.01171875f), 0x3f82);
	/* just above the halfway point rounds up */
	assert_int_equal(sc_bf16_from_f32(1.00390625f + 0x1p-20f), 0x3f81);
	/* 0.1 = 0x3dcccccd: the dropped half 0xcccd is above 0x8000 */
	assert_int_equal(sc_bf16_from_f32(0.1f), 0x3dcd);
	/* the largest float rounds past the largest bfloat16 to infinity */
	assert_int_equal(sc_bf16_from_f32(3.40282347e38f), 0x7f80);
	assert_int_equal(sc_bf16_from_f32(INFINITY), 0x7f80);
	assert_int_equal(sc_bf16_from_f32(-INFINITY), 0xff80);
	assert_true((sc_bf16_from_f32(NAN) & 0x7f80) == 0x7f80 && (sc_bf16_from_f32(NAN) & 0x7f));
	/* a NaN whose payload is only in the low half stays a NaN */
	{
		uint32_t bits = 0x7f800001u;
		float f;
		memcpy(&f, &bits, 4);
		assert_int_equal(sc_bf16_from_f32(f), 0x7fc0);
	}
	assert_true(sc_bf16_to_f32(0x3f81) == 1.0078125f);
	assert_true(sc_bf16_to_f32(0xc020) == -2.5f);
	assert_true(isnan(sc_bf16_to_f32(SC_HALF_POISON)));
}

static void test_f16_known_values(void **state)
{
	(void)state;
	assert_int_equal(sc_f16_from_f32(1.0f), 0x3c00);
	assert_int_equal(sc_f16_from_f32(-2.0f), 0xc000);
	assert_int_equal(sc_f16_from_f32(0.1f), 0x2e66);
	assert_int_equal(sc_f16_from_f32(65504.0f), 0x7bff);
	assert_int_equal(sc_f16_from_f32(65519.0f), 0x7bff);
	assert_int_equal(sc_f16_from_f32(65520.0f), 0x7c00);  /* the tie goes to even: infinity */
	assert_int_equal(sc_f16_from_f32(-1e6f), 0xfc00);
	/* 1 + 2^-11 halfway between 0x3c00 and 0x3c01: even; 1 + 3*2^-11: up to 0x3c02 */
	assert_int_equal(sc_f16_from_f32(1.00048828125f), 0x3c00);
	assert_int_equal(sc_f16_from_f32(1.00146484375f), 0x3c02);
	/* subnormals: 2^-24 is the smallest; 2^-25 is a tie with 0 (even: 0);
	 * 1.5 * 2^-25 rounds up to 2^-24; 2^-14 is the smallest normal */
	assert_int_equal(sc_f16_from_f32(0x1p-24f), 0x0001);
	assert_int_equal(sc_f16_from_f32(0x1p-25f), 0x0000);
	assert_int_equal(sc_f16_from_f32(0x1.8p-25f), 0x0001);
	assert_int_equal(sc_f16_from_f32(0x1p-14f), 0x0400);
	assert_int_equal(sc_f16_from_f32(0x1.ff8p-15f), 0x03ff);  /* largest subnormal */
	assert_int_equal(sc_f16_from_f32(0x1.ffcp-15f), 0x0400);  /* halfway to 2^-14: even */
	assert_int_equal(sc_f16_from_f32(-0x1p-24f), 0x8001);
	assert_true((sc_f16_from_f32(NAN) & 0x7c00) == 0x7c00 && (sc_f16_from_f32(NAN) & 0x3ff));
	assert_true(sc_f16_to_f32(0x0001) == 0x1p-24f);
	assert_true(sc_f16_to_f32(0x03ff) == 0x1.ff8p-15f);
	assert_true(sc_f16_to_f32(0x7bff) == 65504.0f);
	assert_true(sc_f16_to_f32(0xfc00) == -INFINITY);
	assert_true(isnan(sc_f16_to_f32(SC_HALF_POISON)));
}

/* Every finite pattern survives widening and rounding back; rounding is
 * to the nearest representable value. */
static void test_round_trips_and_nearest(void **state)
{
	(void)state;
	for (uint32_t h = 0; h < 0x10000; h++) {
		float b = sc_bf16_to_f32((uint16_t)h), f = sc_f16_to_f32((uint16_t)h);
		if (!isnan(b))
			assert_int_equal(sc_bf16_from_f32(b), h);
		if (!isnan(f))
			assert_int_equal(sc_f16_from_f32(f), h);
	}
	/* a sweep of values: the result is never further than half an ulp */
	for (int i = 0; i < 20000; i++) {
		float x = (float)ldexp(1.0 + i / 20000.0, (i % 40) - 20) * (i % 3 ? 1.0f : -1.0f);
		double b = sc_bf16_to_f32(sc_bf16_from_f32(x)), f = sc_f16_to_f32(sc_f16_from_f32(x));
		assert_true(fabs(b - x) <= fabs((double)x) * 0x1p-8);
		if (fabs(x) >= 0x1p-14 && fabs(x) < 65504)
			assert_true(fabs(f - x) <= fabs((double)x) * 0x1p-11);
	}
}

static void test_dtype_sizes(void **state)
{
	float in[3] = { 1.0f, 0.1f, -3.0f }, out[3];
	uint16_t h[3];
	(void)state;
	assert_int_equal(sc_dtype_size(SC_DTYPE_BF16), 2);
	assert_int_equal(sc_dtype_size(SC_DTYPE_F16), 2);
	assert_int_equal(sc_dtype_size(SC_DTYPE_F32), 4);
	assert_int_equal(sc_dtype_size(SC_DTYPE_U32), 4);
	assert_int_equal(sc_dtype_size(SC_DTYPE_E4M3), 1);
	assert_true(sc_dtype_is_narrow(SC_DTYPE_E4M3) && sc_dtype_is_narrow(SC_DTYPE_BF16));
	assert_false(sc_dtype_is_half(SC_DTYPE_E4M3));
	assert_false(sc_dtype_is_narrow(SC_DTYPE_F32));
	assert_true(sc_dtype_is_float(SC_DTYPE_BF16));
	assert_false(sc_dtype_is_float(SC_DTYPE_I32));
	sc_half_encode(h, SC_DTYPE_BF16, in, 3);
	assert_int_equal(h[1], 0x3dcd);
	sc_half_decode(out, SC_DTYPE_BF16, h, 3);
	assert_true(out[0] == 1.0f && out[2] == -3.0f && out[1] == 0.10009765625f);
}

/* float8 e4m3, hand-computed: 1 = 1.0 * 2^0 is exponent field 7 (bias 7),
 * mantissa 0: 0x38; 2.5 = 1.25 * 2^1: field 8, mantissa 2: 0x42. */
static void test_e4m3_known_values(void **state)
{
	(void)state;
	assert_int_equal(sc_e4m3_from_f32(1.0f), 0x38);
	assert_int_equal(sc_e4m3_from_f32(-2.5f), 0xc2);
	assert_int_equal(sc_e4m3_from_f32(0.0f), 0x00);
	assert_int_equal(sc_e4m3_from_f32(-0.0f), 0x80);
	assert_int_equal(sc_e4m3_from_f32(15.0f), 0x57);      /* 1.875 * 2^3: field 10, mantissa 7 */
	assert_int_equal(sc_e4m3_from_f32(448.0f), 0x7e);     /* the largest finite value */
	assert_int_equal(sc_e4m3_from_f32(240.0f), 0x77);     /* 1.875 * 2^7 */
	/* ties to even: 1 + 1/16 lies between 1 (m 0) and 1.125 (m 1): 0x38;
	 * 1 + 3/16 between 1.125 and 1.25 (m 2): 0x3a; 15.5 between 15 (m 7)
	 * and 16: the even one is 16, a carry into the exponent (0x58) */
	assert_int_equal(sc_e4m3_from_f32(1.0625f), 0x38);
	assert_int_equal(sc_e4m3_from_f32(1.1875f), 0x3a);
	assert_int_equal(sc_e4m3_from_f32(15.5f), 0x58);
	assert_int_equal(sc_e4m3_from_f32(1.0625f + 0x1p-20f), 0x39);  /* just above the tie */
	/* 0.1 = 1.6 * 2^-4: field 3, mantissa 4.8 -> 5: 0x1d (0.1015625) */
	assert_int_equal(sc_e4m3_from_f32(0.1f), 0x1d);
	/* saturation ("satfinite"): beyond 448, infinity included; NaN keeps its sign */
	assert_int_equal(sc_e4m3_from_f32(464.0f), 0x7e);
	assert_int_equal(sc_e4m3_from_f32(1e9f), 0x7e);
	assert_int_equal(sc_e4m3_from_f32(-INFINITY), 0xfe);
	assert_int_equal(sc_e4m3_from_f32(NAN), 0x7f);
	/* subnormals, in units of 2^-9: 2^-9 is 0x01; 2^-10 ties with 0 (even:
	 * 0); 3 * 2^-10 = 1.5 units ties to 2; 7.5 units ties to 8, the
	 * smallest normal 2^-6 (0x08) */
	assert_int_equal(sc_e4m3_from_f32(0x1p-9f), 0x01);
	assert_int_equal(sc_e4m3_from_f32(0x1p-10f), 0x00);
	assert_int_equal(sc_e4m3_from_f32(0x1.8p-9f), 0x02);
	assert_int_equal(sc_e4m3_from_f32(-0x1.ep-7f), 0x88);  /* -7.5 units */
	assert_int_equal(sc_e4m3_from_f32(0x1p-6f), 0x08);
	assert_int_equal(sc_e4m3_from_f32(0x1.cp-7f), 0x07);  /* 7 units: the largest subnormal */
	assert_int_equal(sc_e4m3_from_f32(1e-30f), 0x00);
	/* decoding */
	assert_true(sc_e4m3_to_f32(0x38) == 1.0f);
	assert_true(sc_e4m3_to_f32(0xc2) == -2.5f);
	assert_true(sc_e4m3_to_f32(0x7e) == 448.0f);
	assert_true(sc_e4m3_to_f32(0x57) == 15.0f);
	assert_true(sc_e4m3_to_f32(0x1d) == 0.1015625f);
	assert_true(sc_e4m3_to_f32(0x01) == 0x1p-9f);
	assert_true(sc_e4m3_to_f32(0x07) == 0x1.cp-7f);
	assert_true(sc_e4m3_to_f32(0x08) == 0x1p-6f);
	assert_true(sc_e4m3_to_f32(0x80) == 0.0f && signbit(sc_e4m3_to_f32(0x80)));
	assert_true(isnan(sc_e4m3_to_f32(0x7f)));
	assert_true(isnan(sc_e4m3_to_f32(0xff)));
	/* e5m2 would read 0x38 as 0.5 and 0x7e as NaN: not what this decodes */
	assert_true(sc_e4m3_to_f32(0x7c) == 384.0f);
}

/* Every finite e4m3 pattern survives widening and rounding back; the
 * rounding of a sweep of values is to a nearest representable one. */
static void test_e4m3_round_trips_and_nearest(void **state)
{
	float codes[256];
	(void)state;
	for (int b = 0; b < 256; b++) {
		codes[b] = sc_e4m3_to_f32((uint8_t)b);
		if (!isnan(codes[b]))
			assert_int_equal(sc_e4m3_from_f32(codes[b]), b);
	}
	for (int i = 0; i < 40000; i++) {
		float x = (float)ldexp(1.0 + i / 40000.0, (i % 20) - 12) * (i % 3 ? 1.0f : -1.0f);
		double got = codes[sc_e4m3_from_f32(x)], best = INFINITY;
		for (int b = 0; b < 256; b++)
			if (!isnan(codes[b]) && fabs(codes[b] - (double)x) < best)
				best = fabs(codes[b] - (double)x);
		assert_true(fabs(got - (double)x) == best);
	}
}

/* ---- the harness with half buffers: y = x + w (w float32), copy-like ---- */

static const char *spec_json =
	"{\"name\":\"halfcopy\",\"entry\":\"k\",\"size_vars\":[\"n\"],"
	"\"params\":[{\"name\":\"x\",\"kind\":\"buffer\",\"type\":\"TYPE\",\"role\":\"in\",\"shape\":\"n\","
	"\"init\":[{\"dist\":\"uniform\",\"lo\":-3,\"hi\":3},{\"dist\":\"normal\",\"mean\":0,\"std\":1000}]},"
	"{\"name\":\"y\",\"kind\":\"buffer\",\"type\":\"TYPE\",\"role\":\"out\",\"shape\":\"n\"},"
	"{\"name\":\"s\",\"kind\":\"buffer\",\"type\":\"float32\",\"role\":\"scratch\",\"shape\":\"n\"},"
	"{\"name\":\"n\",\"kind\":\"scalar\",\"type\":\"int32\",\"value\":\"n\"}],"
	"\"sizes\":{\"correctness\":[{\"n\":1},{\"n\":17},{\"n\":1000},{\"n\":4097}],\"timing\":{\"n\":4097}},"
	"\"launch\":{\"grid\":[\"ceil_div(n,B)\",1,1],\"block\":[\"B\",\"1\",\"1\"]},"
	"\"tunables\":{\"B\":{\"default\":64,\"min\":32,\"max\":512,\"multiple_of\":32}},"
	"\"tolerance\":{\"atol\":0,\"rtol\":0},\"flops\":\"n\",\"bytes\":\"4*n\","
	"\"timing\":{\"warmup\":1,\"min_reps\":3,\"max_reps\":5}}";

static struct sc_spec spec;

static void load_spec(const char *type)
{
	struct sc_buf b = SC_BUF_INIT;
	const char *p = spec_json;
	const char *at;

	while ((at = strstr(p, "TYPE")) != NULL) {
		sc_buf_put(&b, p, (size_t)(at - p));
		sc_buf_puts(&b, type);
		p = at + 4;
	}
	sc_buf_puts(&b, p);
	if (sc_spec_parse(&spec, b.ptr, b.len, "halfcopy/spec.json") < 0)
		fail_msg("%s", sc_error_last());
	sc_buf_release(&b);
}

/* The reference copies its float view of x: if it saw x before rounding,
 * an exact copy of the device's 16-bit x would not match with atol = rtol = 0. */
static void ref_copy(const struct sc_ref_args *a)
{
	memcpy(a->buf[1], a->buf[0], (size_t)a->i[3] * sizeof(float));
	assert_null(a->buf[2]);  /* scratch: device only */
}

#define P16(p, k) ((uint16_t *)(uintptr_t)*(uint64_t *)(p)[k])
#define PS(p) ((float *)(uintptr_t)*(uint64_t *)(p)[2])
#define N(p) (*(int *)(p)[3])

static size_t gid(const struct sc_cpu_thread *t)
{
	return (size_t)t->bid[0] * t->block[0] + t->tid[0];
}

/* Copies the 16-bit patterns, after checking the scratch holds the poison. */
static void k_copy(const struct sc_cpu_thread *t, void **p)
{
	size_t i = gid(t);
	if (i < (size_t)N(p)) {
		uint32_t bits;
		memcpy(&bits, &PS(p)[i], 4);
		if (bits != SC_HARNESS_POISON_F32)
			P16(p, 1)[i] = 0;  /* scratch not poisoned: make the check fail */
		else
			P16(p, 1)[i] = P16(p, 0)[i];
		PS(p)[i] = 1.0f;  /* leave something behind: must not survive */
	}
}

static void k_noop(const struct sc_cpu_thread *t, void **p) { (void)t; (void)p; }

/* Writes one element past the end of y (an odd n puts it across a 4-byte word). */
static void k_oob(const struct sc_cpu_thread *t, void **p)
{
	k_copy(t, p);
	if (gid(t) == 0)
		P16(p, 1)[N(p)] = 0x3f80;
}

/* Writes one element past the end of the scratch buffer. */
static void k_oob_scratch(const struct sc_cpu_thread *t, void **p)
{
	k_copy(t, p);
	if (gid(t) == 0)
		PS(p)[N(p)] = 0.0f;
}

/* Flips the lowest bit of x[n-1] after copying. */
static void k_touch_input(const struct sc_cpu_thread *t, void **p)
{
	k_copy(t, p);
	if (gid(t) == (size_t)N(p) - 1)
		P16(p, 0)[N(p) - 1] ^= 1;
}

static struct sc_check_result check_with(const char *type, sc_cpu_kernel_fn fn)
{
	struct sc_device *dev = sc_device_cpu_new();
	struct sc_kernel_handle k;
	struct sc_check_opts o = { .nseeds = 5, .seed_base = 1, .timeout_ms = 1000 };
	struct sc_check_result r;

	load_spec(type);
	sc_device_cpu_register(dev, "k", fn, NULL, 0);
	memset(&k, 0, sizeof(k));
	assert_int_equal(dev->load(dev, "k", 1, "k", &k.fn), 0);
	k.tun.v[0] = 64;
	assert_int_equal(sc_harness_check(&r, dev, &spec, &k, ref_copy, &o), 0);
	dev->close(dev);
	sc_spec_release(&spec);
	return r;
}

static void test_reference_sees_rounded_inputs(void **state)
{
	(void)state;
	for (int t = 0; t < 2; t++) {
		struct sc_check_result r = check_with(t ? "float16" : "bfloat16", k_copy);
		if (!r.ok)
			fail_msg("%s: %s", t ? "float16" : "bfloat16", r.message);
		/* 4 sizes x 2 distributions x 5 seeds, and exact */
		assert_int_equal(r.launches, 40);
		assert_true(r.max_ratio == 0);
	}
}

static void test_half_poison_and_guards(void **state)
{
	struct sc_check_result r;
	(void)state;
	r = check_with("bfloat16", k_noop);
	assert_false(r.ok);
	assert_int_equal(r.reason, SC_REASON_STALE);
	assert_non_null(strstr(r.message, "NaN poison"));
	r = check_with("float16", k_noop);
	assert_int_equal(r.reason, SC_REASON_STALE);

	/* n = 1 first: the tail guard starts 2 bytes into a 4-byte word */
	r = check_with("bfloat16", k_oob);
	assert_false(r.ok);
	assert_int_equal(r.reason, SC_REASON_OUT_OF_BOUNDS);
	assert_non_null(strstr(r.message, "'y' element"));
	assert_non_null(strstr(r.message, "past the end"));
	assert_non_null(strstr(r.message, "n=1"));

	r = check_with("bfloat16", k_oob_scratch);
	assert_int_equal(r.reason, SC_REASON_OUT_OF_BOUNDS);
	assert_non_null(strstr(r.message, "'s' element"));

	r = check_with("float16", k_touch_input);
	assert_int_equal(r.reason, SC_REASON_INPUT_MODIFIED);
	assert_non_null(strstr(r.message, "first changed element 0"));  /* n = 1 */
}

/* A large-magnitude float16 input overflows to infinity when rounded; the
 * reference then sees infinity too, and the copy still matches exactly. */
static void test_f16_overflow_reaches_reference(void **state)
{
	uint16_t buf[4096];
	struct sc_dist d = { SC_DIST_NORMAL, 0, 1e6 };
	size_t inf = 0;
	(void)state;
	sc_harness_fill(buf, SC_DTYPE_F16, 4096, &d, 7);
	for (size_t i = 0; i < 4096; i++)
		inf += isinf(sc_f16_to_f32(buf[i]));
	assert_true(inf > 3000);  /* |x| >= 65520 for most of normal(0, 1e6) */
	d.b = 1000;
	sc_harness_fill(buf, SC_DTYPE_BF16, 4096, &d, 7);
	for (size_t i = 0; i < 4096; i++) {
		float f = sc_bf16_to_f32(buf[i]);
		assert_true(isfinite(f));
		assert_int_equal(sc_bf16_from_f32(f), buf[i]);  /* already a bfloat16 value */
	}
}

/* Timing with half buffers: scratch and 16-bit outputs, mutated 16-bit
 * inputs; the checks after timing pass for equal kernels and fail for a
 * kernel that changes after a few calls. */
static unsigned drift_after = 1000;
static void k_drift(const struct sc_cpu_thread *t, void **p)
{
	k_copy(t, p);
	if (t->launch_index >= drift_after && gid(t) < (size_t)N(p))
		P16(p, 1)[gid(t)] ^= 0x0100;  /* a bit of the exponent */
}

static int64_t cost_1ms(void **p, unsigned n) { (void)p; (void)n; return 1000000; }

static void test_half_timing_and_revalidation(void **state)
{
	struct sc_device *dev;
	struct sc_kernel_handle c, b;
	struct sc_timing_opts_run o = { .timeout_ms = 1000, .check_every = 2 };
	struct sc_timing_result r;
	(void)state;

	for (int drift = 0; drift < 2; drift++) {
		load_spec("bfloat16");
		dev = sc_device_cpu_new();
		drift_after = drift ? 3 : 1000;
		sc_device_cpu_register(dev, "c", k_drift, cost_1ms, 0);
		sc_device_cpu_register(dev, "b", k_copy, cost_1ms, 0);
		memset(&c, 0, sizeof(c));
		memset(&b, 0, sizeof(b));
		assert_int_equal(dev->load(dev, "c", 1, "k", &c.fn), 0);
		assert_int_equal(dev->load(dev, "b", 1, "k", &b.fn), 0);
		c.tun.v[0] = b.tun.v[0] = 64;
		assert_int_equal(sc_harness_time(&r, dev, dev, &spec, &c, &b, &o), 0);
		if (drift) {
			/* caught by a comparison with the baseline's 16-bit outputs */
			assert_false(r.ok);
			assert_int_equal(r.reason, SC_REASON_MISMATCH);
			assert_non_null(strstr(r.message, "baseline gives"));
		} else {
			/* fresh 16-bit inputs for every timed launch, guards
			 * and inputs checked after timing, outputs equal throughout */
			if (!r.ok)
				fail_msg("%s", r.message);
			assert_true(r.fresh_inputs > 0);
			assert_true(r.spot_checks > 0);
			assert_true(fabs(r.speedup - 1.0) < 1e-12);
		}
		dev->close(dev);
		sc_spec_release(&spec);
	}
}

/* ---- float8_e4m3 inputs: one byte per element, rounded (saturating)
 * before the reference sees them; inputs only ---- */

static const char *e4m3_json =
	"{\"name\":\"fp8copy\",\"entry\":\"k\",\"size_vars\":[\"n\"],"
	"\"params\":[{\"name\":\"q\",\"kind\":\"buffer\",\"type\":\"float8_e4m3\",\"role\":\"in\",\"shape\":\"n\","
	"\"init\":[{\"dist\":\"uniform\",\"lo\":-600,\"hi\":600},{\"dist\":\"normal\",\"mean\":0,\"std\":0.01}]},"
	"{\"name\":\"y\",\"kind\":\"buffer\",\"type\":\"float32\",\"role\":\"out\",\"shape\":\"n\"},"
	"{\"name\":\"n\",\"kind\":\"scalar\",\"type\":\"int32\",\"value\":\"n\"}],"
	"\"sizes\":{\"correctness\":[{\"n\":1},{\"n\":17},{\"n\":4097}],\"timing\":{\"n\":4097}},"
	"\"launch\":{\"grid\":[\"ceil_div(n,B)\",1,1],\"block\":[\"B\",\"1\",\"1\"]},"
	"\"tunables\":{\"B\":{\"default\":64,\"min\":32,\"max\":512,\"multiple_of\":32}},"
	"\"tolerance\":{\"atol\":0,\"rtol\":0},\"flops\":\"n\",\"bytes\":\"5*n\","
	"\"timing\":{\"warmup\":1,\"min_reps\":3,\"max_reps\":5}}";

#define P8(p) ((uint8_t *)(uintptr_t)*(uint64_t *)(p)[0])
#define PY(p) ((float *)(uintptr_t)*(uint64_t *)(p)[1])
#define N8(p) (*(int *)(p)[2])

static size_t e4m3_saturated, e4m3_subnormal;

/* Widens each byte with a decoder of its own (not the harness's): sign,
 * exponent field, mantissa by hand. */
static void k_e4m3_widen(const struct sc_cpu_thread *t, void **p)
{
	size_t i = gid(t);
	if (i < (size_t)N8(p)) {
		unsigned b = P8(p)[i], e = (b >> 3) & 15, m = b & 7;
		double v = e ? (1.0 + m / 8.0) * pow(2.0, (double)e - 7) : m / 512.0;
		PY(p)[i] = (float)(b & 0x80 ? -v : v);
		e4m3_saturated += (b & 0x7f) == 0x7e;
		e4m3_subnormal += e == 0 && m != 0;
	}
}

/* Reads the byte just past the end of q: the guard after it. */
static void k_e4m3_write_past(const struct sc_cpu_thread *t, void **p)
{
	k_e4m3_widen(t, p);
	if (gid(t) == 0)
		P8(p)[N8(p)] ^= 1;
}

static void ref_e4m3_copy(const struct sc_ref_args *a)
{
	memcpy(a->buf[1], a->buf[0], (size_t)a->i[2] * sizeof(float));
}

static struct sc_check_result check_e4m3(sc_cpu_kernel_fn fn)
{
	struct sc_device *dev = sc_device_cpu_new();
	struct sc_kernel_handle k;
	struct sc_check_opts o = { .nseeds = 3, .seed_base = 1, .timeout_ms = 1000 };
	struct sc_check_result r;

	if (sc_spec_parse(&spec, e4m3_json, strlen(e4m3_json), "fp8copy/spec.json") < 0)
		fail_msg("%s", sc_error_last());
	sc_device_cpu_register(dev, "k", fn, NULL, 0);
	memset(&k, 0, sizeof(k));
	assert_int_equal(dev->load(dev, "k", 1, "k", &k.fn), 0);
	k.tun.v[0] = 64;
	assert_int_equal(sc_harness_check(&r, dev, &spec, &k, ref_e4m3_copy, &o), 0);
	dev->close(dev);
	sc_spec_release(&spec);
	return r;
}

static void test_e4m3_buffers(void **state)
{
	struct sc_check_result r;
	struct sc_spec bad;
	struct sc_buf js = SC_BUF_INIT;
	const char *at;
	(void)state;

	e4m3_saturated = e4m3_subnormal = 0;
	r = check_e4m3(k_e4m3_widen);
	if (!r.ok)
		fail_msg("%s", r.message);
	/* 3 sizes x 2 distributions x 3 seeds, and exact: the reference saw
	 * the same bytes, decoded */
	assert_int_equal(r.launches, 18);
	assert_true(r.max_ratio == 0);
	/* uniform(-600, 600) saturates a quarter of its values to +-448;
	 * normal(0, 0.01) lands most of its values below 2^-6 */
	assert_true(e4m3_saturated > 1000);
	assert_true(e4m3_subnormal > 5000);

	r = check_e4m3(k_e4m3_write_past);
	assert_false(r.ok);
	assert_int_equal(r.reason, SC_REASON_OUT_OF_BOUNDS);
	assert_non_null(strstr(r.message, "'q' element"));

	/* an e4m3 output is refused, with the parameter's path */
	at = strstr(e4m3_json, "\"role\":\"in\"");
	sc_buf_put(&js, e4m3_json, (size_t)(at - e4m3_json));
	sc_buf_puts(&js, "\"role\":\"inout\"");
	sc_buf_puts(&js, at + strlen("\"role\":\"in\""));
	assert_int_equal(sc_spec_parse(&bad, js.ptr, js.len, "fp8copy/spec.json"), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "fp8copy/spec.json"));
	assert_non_null(strstr(sc_error_last(), "$.params[0]"));
	assert_non_null(strstr(sc_error_last(), "float8_e4m3 buffer must be an input"));
	sc_buf_release(&js);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bf16_known_values),
		cmocka_unit_test(test_f16_known_values),
		cmocka_unit_test(test_round_trips_and_nearest),
		cmocka_unit_test(test_dtype_sizes),
		cmocka_unit_test(test_reference_sees_rounded_inputs),
		cmocka_unit_test(test_half_poison_and_guards),
		cmocka_unit_test(test_f16_overflow_reaches_reference),
		cmocka_unit_test(test_half_timing_and_revalidation),
		cmocka_unit_test(test_e4m3_known_values),
		cmocka_unit_test(test_e4m3_round_trips_and_nearest),
		cmocka_unit_test(test_e4m3_buffers),
	};
	return cmocka_run_group_tests_name("kernel_half", tests, NULL, NULL);
}
