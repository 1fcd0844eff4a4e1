#include <hip/hip_runtime.h>
__device__ __forceinline__ int sq(int v) { int r = v * v; return r + 1; }
__device__ __noinline__ int tri(int v) { int s = 0; for (int i = 0; i < v; ++i) s += i; return s; }
__global__ void kern(int *p, int n) {
  __shared__ int tile[64];
  int t = threadIdx.x;
  int g = blockIdx.x * blockDim.x + t;
  tile[t & 63] = sq(g) + tri(n);
  __syncthreads();
  if (g < n) { int v = tile[(t + 1) & 63]; p[g] = v; }
}
