/* Source of the lds-* code objects of these golden cases: two __local
   arrays whose addresses the objects do not know (the compiler's LDS
   lowering allocates them; the DWARF names the symbols k.a and k.b, which
   stay undefined), and a __local pointer whose value the code computes.
     clang-19 -target amdgcn-amd-amdhsa -mcpu=gfx900 -nogpulib -g -O0 \
       -fdebug-prefix-map=$PWD=/src -c lds.cl -o lds-gfx900-O0.rel.elf
     ld.lld-19 -shared lds-gfx900-O0.rel.elf -o lds-gfx900-O0.elf
     clang-19 -target amdgcn-amd-amdhsa -mcpu=gfx900 -nogpulib -g -gdwarf-4 -O0 \
       -fdebug-prefix-map=$PWD=/src -c lds.cl -o lds-gfx900-O0-dwarf4.rel.elf
     ld.lld-19 -shared lds-gfx900-O0-dwarf4.rel.elf -o lds-gfx900-O0-dwarf4.elf
   (the DWARF 4 relocatable object is not kept). */
__kernel void k(__global int *out)
{
  __local int a[16];
  __local int b[16];
  __local int *p = b;
  int id = __builtin_amdgcn_workitem_id_x();
  a[id] = id; b[id] = id * 2;
  __builtin_amdgcn_s_barrier();
  out[id] = a[15 - id] + p[id];
}
