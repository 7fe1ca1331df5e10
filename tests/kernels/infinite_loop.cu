// Planted: never returns (spins on a value that never changes).
// expect-scan:
// expect-gpu: failed timeout
// expect-cpu: compiled no_gpu
extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    volatile const float* vx = x;
    while (vx[0] == vx[0]) { }
    y[blockIdx.x] = 0.0f;
}
