// Pitfall: assuming cols is a multiple of 4 (float4 loads, no tail).
// fixture: softmax
// expect-emu: failed stale_output
extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    int row = blockIdx.x;
    if (row >= rows) return;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    const float4* x4 = reinterpret_cast<const float4*>(xr);
    float m = -INFINITY;
    for (int c = 0; c < cols / 4; c++) {
        float4 v = x4[c];
        m = fmaxf(fmaxf(m, fmaxf(v.x, v.y)), fmaxf(v.z, v.w));
    }
    float sum = 0.0f;
    for (int c = 0; c < cols / 4; c++) {
        float4 v = x4[c];
        sum += expf(v.x - m) + expf(v.y - m) + expf(v.z - m) + expf(v.w - m);
    }
    for (int c = threadIdx.x; c < cols / 4 * 4; c += blockDim.x) yr[c] = expf(xr[c] - m) / sum;
}
