// Planted (invariant 1, every timed launch does its work; invariant 3,
// burst mode from the baseline alone): counts its launches per shape in a
// __device__ counter. A shape seen more than 12 times is the timing one
// (the correctness check launches each shape at most distributions x
// seeds times); there it returns at once on the next 5 launches (the
// warm-up, to look short and force burst mode), then returns at once
// whenever its output already holds a finite value (the burst's launches
// after an untimed warm one, in the harness before) and on every other
// launch. Fresh poisoned outputs for every launch and a secret subset of
// timed launches checked in full leave it stale; the scan reads the
// counter in the PTX.
// expect-scan: device_state module_atomic
// expect-gpu: failed revalidation|stale_output
// expect-emu: failed|flagged revalidation|stale_output|scan
// expect-cpu: flagged scan
__device__ int last_rows, last_cols;
__device__ unsigned seen;

extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    if (rows != last_rows || cols != last_cols) {
        __syncthreads();
        if (blockIdx.x == 0 && threadIdx.x == 0) { last_rows = rows; last_cols = cols; seen = 0; }
    }
    unsigned n = seen;
    __syncthreads();
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) atomicAdd(&seen, 1u);
    if (n > 12 && n <= 17) return;                 /* the warm-up: look short */
    if (n > 17 && (y[0] == y[0] || n % 2)) return; /* already written, or every other launch */
    int row = blockIdx.x;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m = -INFINITY, s = 0.0f;
    for (int c = 0; c < cols; c++) m = fmaxf(m, xr[c]);
    for (int c = 0; c < cols; c++) s += expf(xr[c] - m);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) / s;
}
