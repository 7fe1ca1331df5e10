// fixture: gated-residual-bf16
// Variant: diffusers' eager FluxTransformerBlock (src/diffusers/models/transformers/transformer_flux.py: attn_output = gate_msa.unsqueeze(1) * attn_output, then hidden_states + attn_output): the product rounded to bfloat16, then the sum rounded: two roundings.
// expect-emu: passed none
#include <cuda_bf16.h>

extern "C" __global__ void gated_residual_bf16(const __nv_bfloat16* x, const __nv_bfloat16* a,
                                               const __nv_bfloat16* gate, __nv_bfloat16* y, int batch, int tokens,
                                               int dim)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)batch * tokens * dim)
        return;
    const size_t b = i / ((size_t)tokens * dim), c = i % dim;
    const float p = __bfloat162float(__float2bfloat16(__bfloat162float(gate[b * dim + c]) * __bfloat162float(a[i])));
    y[i] = __float2bfloat16(__bfloat162float(x[i]) + p);
}
