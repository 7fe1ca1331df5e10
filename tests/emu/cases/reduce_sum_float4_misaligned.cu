// Emulator self-check: float4 loads assuming cols % 4 == 0, with a scalar
// tail (a reduce-sum pitfall). Rows of 4097 (or 17, 33, 100003) start off
// 16-byte alignment after row 0: a GPU faults on the misaligned vector
// load (launch error); the emulation's alignment check stops the launch.
// fixture: reduce-sum
// expect-emu: crashed emu
extern "C" __global__ void reduce_sum(const float* x, float* y, int rows, int cols)
{
    __shared__ float red[1024];
    const int row = blockIdx.x, tid = threadIdx.x;
    if (row >= rows)
        return;
    const float* xr = x + (size_t)row * cols;
    float s = 0.0f;
    const int n4 = cols / 4;
    for (int c = tid; c < n4; c += blockDim.x) {
        const float4 v = reinterpret_cast<const float4*>(xr)[c];
        s += v.x + v.y + v.z + v.w;
    }
    for (int c = n4 * 4 + tid; c < cols; c += blockDim.x)
        s += xr[c];
    red[tid] = s;
    __syncthreads();
    for (int stride = 512; stride > 0; stride >>= 1) {
        if (tid < stride && tid + stride < (int)blockDim.x)
            red[tid] += red[tid + stride];
        __syncthreads();
    }
    if (tid == 0)
        y[row] = red[0];
}
