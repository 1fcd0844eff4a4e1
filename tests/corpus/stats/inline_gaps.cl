typedef struct { int x; float y; } pair;
__constant int table[4] = {1, 2, 3, 5};
static inline int scale(int v, int f) { int t = v * f; if (t > 100) { int u = t - 100; t = u / 3; } return t + table[f & 3]; }
__attribute__((noinline)) float mix(__global float *p, int n) {
  float acc = 0.0f;
  for (int i = 0; i < n; ++i) { float w = p[i] * 0.5f; acc += w; }
  return acc;
}
__kernel void k(__global int *out, __global float *in, int n) {
  __local int buf[64];
  __local float fbuf[16];
  int gid = (int)__builtin_amdgcn_workitem_id_x();
  int lid = (int)__builtin_amdgcn_workitem_id_y();
  pair pr = { gid, (float)lid };
  buf[lid & 63] = scale(gid, n);
  fbuf[lid & 15] = mix(in, n);
  __builtin_amdgcn_s_barrier();
  { int s = buf[(lid + 1) & 63]; out[gid] = s + (int)fbuf[lid & 15] + pr.x; }
}
__kernel void k2(__global int *out, int a, int b) {
  int gid = (int)__builtin_amdgcn_workitem_id_x();
  int x = scale(a, b) + scale(b, a);
  out[gid] = x;
}
