/* CPU reference for silu-bf16: y = x / (1 + exp(-x)), in double, from the
 * float32 view of the bfloat16 x. Parameters (spec order): x, y, n. */
#include <math.h>

#include "fixture_ref.h"

void sc_ref_silu_bf16(const struct sc_ref_args *a);

void sc_ref_silu_bf16(const struct sc_ref_args *a)
{
	const float *x = a->buf[0];
	float *y = a->buf[1];

	for (int64_t i = 0; i < a->i[2]; i++)
		y[i] = (float)((double)x[i] / (1.0 + exp(-(double)x[i])));
}
