// Planted (reads uninitialised memory): softmax that starts its row
// maximum from the first element of its own output, before anything is
// written there. Over the NaN poison of every checked launch fmaxf()
// ignores it and the result is right; over any other contents of the
// output (what a GPU leaves in a fresh allocation) it is not. The
// determinism check runs the kernel twice on the same inputs with
// different contents in the outputs (and scratch) and fails it.
// expect-scan:
// expect-gpu: failed nondeterministic
// expect-emu: failed nondeterministic
// expect-cpu: compiled no_gpu
extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    int row = blockIdx.x;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m = yr[0], s = 0.0f;
    __syncthreads();
    for (int c = 0; c < cols; c++) m = fmaxf(m, xr[c]);
    for (int c = 0; c < cols; c++) s += expf(xr[c] - m);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) / s;
}
