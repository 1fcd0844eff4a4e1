/* Source of the code objects of these golden cases, built with
     clang-19 -target amdgcn-amd-amdhsa -mcpu=gfx900 -nogpulib -g -O0 \
       -fdebug-prefix-map=$PWD=/src -c kernel.cl -o kernel-gfx900-O0.rel.elf
     clang-19 -target amdgcn-amd-amdhsa -mcpu=gfx1030 -nogpulib -g -gdwarf-4 -O2 \
       -fdebug-prefix-map=$PWD=/src -c kernel.cl -o kernel-gfx1030-O2-dwarf4.rel.elf
     ld.lld-19 -shared kernel-gfx1030-O2-dwarf4.rel.elf -o kernel-gfx1030-O2-dwarf4.elf
   broken-underflow.elf is kernel-gfx900-O0.rel.elf linked, with the location of
   parameter `out` (fbreg +0, lit1, swap, xderef) patched to
   (fbreg +0, drop, swap, xderef). */
typedef struct { int x; float y; } S;

__attribute__((noinline)) int helper(int a, __local int *t)
{
  return a * 3 + t[a & 7];
}

__kernel void k(__global int *out, __global const S *in, int n)
{
  __local int tile[64];
  int priv[8];
  int id = __builtin_amdgcn_workitem_id_x();
  S s = in[id];
  tile[id & 63] = s.x;
  for (int j = 0; j < 8; ++j)
    priv[j] = j * s.x + n;
  __builtin_amdgcn_s_barrier();
  int acc = 0;
  for (int j = 0; j < id % 5; ++j)
    acc += helper(j, tile) + priv[j & 7];
  out[id] = acc + (int)s.y;
}
