// Planted: a missing semicolon on line 8 (NVRTC reports it at line 9).
// expect-scan:
// expect-gpu: failed compile_error
// expect-cpu: failed compile_error
extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    int row = blockIdx.x;
    float v = x[row]
    y[row] = v;
}
