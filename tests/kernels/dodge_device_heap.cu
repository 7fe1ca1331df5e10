// Planted scan dodge: the device heap outlives a launch, so a cache can
// live there; `malloc` spelled through a pasted token so the source scan
// does not name it. The PTX calls malloc (and keeps the pointer in
// module state).
// expect-scan: device_heap device_state
// expect-gpu: flagged scan
// expect-emu: flagged scan
// expect-cpu: flagged scan
#define CAT(a, b) a##b
__device__ float* heap_cache;
extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    if (blockIdx.x == 0 && threadIdx.x == 0 && !heap_cache)
        heap_cache = (float*)CAT(mal, loc)(1024 * sizeof(float));
    int row = blockIdx.x;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m = -INFINITY, s = 0.0f;
    for (int c = 0; c < cols; c++) m = fmaxf(m, xr[c]);
    for (int c = 0; c < cols; c++) s += expf(xr[c] - m);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) / s;
}
