// Planted: does the row work in a child kernel launched on a side stream
// (dynamic parallelism), so events on the launch stream would not see it.
// NVRTC compiles device-only code without -rdc, so this cannot even build;
// the static scan flags the stream creation and the device-side launch.
// expect-scan: stream_creation device_launch
// expect-gpu: failed compile_error
// expect-cpu: failed compile_error
extern "C" __global__ void child(const float* x, float* y, int cols)
{
    for (int c = threadIdx.x; c < cols; c += blockDim.x) y[c] = x[c];
}

extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    if (threadIdx.x == 0) {
        cudaStream_t s;
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        child<<<1, 256, 0, s>>>(x + (size_t)blockIdx.x * cols, y + (size_t)blockIdx.x * cols, cols);
    }
}
