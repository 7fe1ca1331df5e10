// Planted: does the arithmetic in half precision on an fp32 fixture. The
// scan flags the downcast; on a GPU it is wrong at this tolerance, or, where
// it happens to pass, flagged rather than passed.
// expect-scan: precision_downcast
// expect-gpu: failed|flagged mismatch|scan
// expect-cpu: flagged scan
#include <cuda_fp16.h>

extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    int row = blockIdx.x;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m = -INFINITY, s = 0.0f;
    for (int c = 0; c < cols; c++) m = fmaxf(m, xr[c]);
    for (int c = 0; c < cols; c++) s += __half2float(hexp(__float2half(xr[c] - m)));
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        yr[c] = __half2float(hexp(__float2half(xr[c] - m))) / s;
}
