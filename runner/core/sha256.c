#include "common.h"
#include "sha256.h"

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

/* The portable compression of one 64-byte block into h. */
static void compress_c(uint32_t h8[8], const unsigned char *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, h;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
	for (i = 16; i < 64; i++) {
		uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = h8[0]; b = h8[1]; c = h8[2]; d = h8[3];
	e = h8[4]; f = h8[5]; g = h8[6]; h = h8[7];
	for (i = 0; i < 64; i++) {
		uint32_t s1 = ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25);
		uint32_t ch = (e & f) ^ (~e & g);
		uint32_t t1 = h + s1 + ch + K[i] + w[i];
		uint32_t s0 = ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22);
		uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
		uint32_t t2 = s0 + maj;
		h = g; g = f; f = e; e = d + t1;
		d = c; c = b; b = a; a = t1 + t2;
	}
	h8[0] += a; h8[1] += b; h8[2] += c; h8[3] += d;
	h8[4] += e; h8[5] += f; h8[6] += g; h8[7] += h;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#include <stdatomic.h>

/*
 * The same on the x86 SHA extensions (SHA-NI), for n blocks: a results
 * file of a hundred megabytes is hashed in a tenth of the time. The state
 * is kept as the instructions want it, ABEF and CDGH (A in the top lane);
 * each sha256rnds2 does two rounds, each sha256msg1/msg2 pair four words
 * of the schedule.
 */
__attribute__((target("sha,sse4.1,ssse3")))
static void compress_ni(uint32_t h8[8], const unsigned char *p, size_t n)
{
	const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
	__m128i abcd = _mm_loadu_si128((const __m128i *)(const void *)&h8[0]);
	__m128i efgh = _mm_loadu_si128((const __m128i *)(const void *)&h8[4]);
	__m128i badc = _mm_shuffle_epi32(abcd, 0xB1);     /* lanes b a d c */
	__m128i hgfe = _mm_shuffle_epi32(efgh, 0x1B);     /* lanes h g f e */
	__m128i abef = _mm_alignr_epi8(badc, hgfe, 8);    /* lanes f e b a */
	__m128i cdgh = _mm_blend_epi16(hgfe, badc, 0xF0); /* lanes h g d c */

	for (; n; n--, p += 64) {
		__m128i save0 = abef, save1 = cdgh, w[4], m;
		for (int i = 0; i < 4; i++)
			w[i] = _mm_shuffle_epi8(
				_mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i)), bswap);
		/* unrolled, the schedule stays in registers: 1.2-1.25 times
		 * the throughput of the loop (tests/bench/bench_sha256.sh) */
#pragma GCC unroll 16
		for (int j = 0; j < 16; j++) {
			__m128i *x = &w[j & 3];
			if (j >= 4) {
				/* w[t] from w[t-16], w[t-15], w[t-7], w[t-2] */
				__m128i t = _mm_sha256msg1_epu32(*x, w[(j + 1) & 3]);
				t = _mm_add_epi32(t, _mm_alignr_epi8(w[(j + 3) & 3], w[(j + 2) & 3], 4));
				*x = _mm_sha256msg2_epu32(t, w[(j + 3) & 3]);
			}
			m = _mm_add_epi32(*x, _mm_loadu_si128((const __m128i *)(const void *)&K[4 * j]));
			cdgh = _mm_sha256rnds2_epu32(cdgh, abef, m);
			m = _mm_shuffle_epi32(m, 0x0E);
			abef = _mm_sha256rnds2_epu32(abef, cdgh, m);
		}
		abef = _mm_add_epi32(abef, save0);
		cdgh = _mm_add_epi32(cdgh, save1);
	}
	{
		__m128i feba = _mm_shuffle_epi32(abef, 0x1B);  /* lanes a b e f */
		__m128i ghcd = _mm_shuffle_epi32(cdgh, 0xB1);  /* lanes g h c d */
		_mm_storeu_si128((__m128i *)(void *)&h8[0], _mm_blend_epi16(feba, ghcd, 0xF0));
		_mm_storeu_si128((__m128i *)(void *)&h8[4], _mm_alignr_epi8(ghcd, feba, 8));
	}
}

/* Whether the CPU has the SHA extensions (and SSSE3 and SSE4.1 with them). */
static bool have_sha_ni(void)
{
	static atomic_int known = -1;
	int v = atomic_load_explicit(&known, memory_order_relaxed);

	if (v < 0) {
		unsigned a, b, c, d;
		v = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSSE3) && (c & bit_SSE4_1) &&
		    __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA);
		atomic_store_explicit(&known, v, memory_order_relaxed);
	}
	return v;
}

static void compress_blocks(uint32_t h8[8], const unsigned char *p, size_t n)
{
	if (have_sha_ni()) {
		compress_ni(h8, p, n);
		return;
	}
	for (; n; n--, p += 64)
		compress_c(h8, p);
}
#else
static void compress_blocks(uint32_t h8[8], const unsigned char *p, size_t n)
{
	for (; n; n--, p += 64)
		compress_c(h8, p);
}
#endif

void sc_sha256_init(struct sc_sha256 *ctx)
{
	static const uint32_t init[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};
	memcpy(ctx->h, init, sizeof(init));
	ctx->total = 0;
	ctx->used = 0;
}

void sc_sha256_update(struct sc_sha256 *ctx, const void *data, size_t len)
{
	const unsigned char *p = data;

	if (!len)
		return;
	ctx->total += len;
	if (ctx->used) {
		size_t take = 64 - ctx->used;
		if (take > len)
			take = len;
		memcpy(ctx->block + ctx->used, p, take);
		ctx->used += take;
		p += take;
		len -= take;
		if (ctx->used < 64)
			return;
		compress_blocks(ctx->h, ctx->block, 1);
		ctx->used = 0;
	}
	/* whole blocks straight from the input */
	if (len >= 64) {
		compress_blocks(ctx->h, p, len / 64);
		p += len / 64 * 64;
		len %= 64;
	}
	memcpy(ctx->block, p, len);
	ctx->used = len;
}

void sc_sha256_final(struct sc_sha256 *ctx, unsigned char out[SC_SHA256_LEN])
{
	uint64_t bits = ctx->total * 8;
	unsigned char pad = 0x80, zero = 0, len[8];
	int i;

	sc_sha256_update(ctx, &pad, 1);
	while (ctx->used != 56)
		sc_sha256_update(ctx, &zero, 1);
	for (i = 0; i < 8; i++)
		len[i] = (unsigned char)(bits >> (56 - 8 * i));
	sc_sha256_update(ctx, len, 8);
	for (i = 0; i < 8; i++) {
		out[4 * i] = (unsigned char)(ctx->h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(ctx->h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(ctx->h[i] >> 8);
		out[4 * i + 3] = (unsigned char)ctx->h[i];
	}
}

void sc_sha256_hex(char out[SC_SHA256_HEX_LEN + 1], const void *data, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char d[SC_SHA256_LEN];
	struct sc_sha256 ctx;

	sc_sha256_init(&ctx);
	sc_sha256_update(&ctx, data, len);
	sc_sha256_final(&ctx, d);
	for (int i = 0; i < SC_SHA256_LEN; i++) {
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 15];
	}
	out[SC_SHA256_HEX_LEN] = '\0';
}

void sc_hmac_init(struct sc_hmac *ctx, const void *key, size_t keylen)
{
	unsigned char k[64], pad[64];

	memset(k, 0, sizeof(k));
	if (keylen > sizeof(k)) {
		struct sc_sha256 h;
		sc_sha256_init(&h);
		sc_sha256_update(&h, key, keylen);
		sc_sha256_final(&h, k);
	} else if (keylen) {
		memcpy(k, key, keylen);
	}
	for (size_t i = 0; i < sizeof(pad); i++)
		pad[i] = (unsigned char)(k[i] ^ 0x36);
	sc_sha256_init(&ctx->inner);
	sc_sha256_update(&ctx->inner, pad, sizeof(pad));
	for (size_t i = 0; i < sizeof(pad); i++)
		pad[i] = (unsigned char)(k[i] ^ 0x5c);
	sc_sha256_init(&ctx->outer);
	sc_sha256_update(&ctx->outer, pad, sizeof(pad));
	memset(k, 0, sizeof(k));
	memset(pad, 0, sizeof(pad));
}

void sc_hmac_update(struct sc_hmac *ctx, const void *data, size_t len)
{
	sc_sha256_update(&ctx->inner, data, len);
}

void sc_hmac_final(struct sc_hmac *ctx, unsigned char out[SC_SHA256_LEN])
{
	unsigned char ih[SC_SHA256_LEN];

	sc_sha256_final(&ctx->inner, ih);
	sc_sha256_update(&ctx->outer, ih, sizeof(ih));
	sc_sha256_final(&ctx->outer, out);
	memset(ctx, 0, sizeof(*ctx));
}

void sc_hmac_sha256(unsigned char out[SC_SHA256_LEN], const void *key, size_t key_len,
		    const struct sc_hmac_part *parts, size_t n)
{
	struct sc_hmac h;

	sc_hmac_init(&h, key, key_len);
	for (size_t i = 0; i < n; i++)
		sc_hmac_update(&h, parts[i].data, parts[i].len);
	sc_hmac_final(&h, out);
}

int sc_digest_equal(const unsigned char *a, const unsigned char *b, size_t n)
{
	unsigned char d = 0;
	for (size_t i = 0; i < n; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}
