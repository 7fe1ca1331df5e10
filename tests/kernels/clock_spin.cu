// Not a cheat: the calibrated kernel for timing validation. One thread
// spins until clock64() has advanced by `cycles`, so a launch takes
// cycles / SM clock plus the launch's own overhead. `make gpu-check` runs
// skillci-kernel --calibrate on it at about 10 us, 100 us and 1 ms and
// compares the harness's median with that; with `measure` set the kernel
// also reports the cycles and the nanoseconds (%globaltimer) it saw, which
// gives the clock it actually ran at.
// calibrate: spin
// expect-scan: clock_read
extern "C" __global__ void spin(int* out, int cycles, int measure)
{
    unsigned long long g0, g1;
    long long c0 = clock64();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
    while (clock64() - c0 < (long long)cycles) { }
    long long c1 = clock64();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
    if (measure) {
        out[0] = (int)(c1 - c0);
        out[1] = (int)(g1 - g0);
    } else {
        out[0] = cycles;
        out[1] = 0;
    }
}
