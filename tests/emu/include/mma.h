/* mma.h for the CUDA emulation: everything is in cuda_emu.h, force-included. */
#include "../cuda_emu.h"
