// Source of unwind.o: llvm-mc-19 -triple amdgcn-amd-amdhsa -mcpu=gfx900 -filetype=obj unwind.s -o unwind.o
// inner and middle: CFA = SGPR32 in private_wave; return address (PC_64) saved
// at [CFA]; the caller's SGPR32 is CFA + 256 (val_offset); the caller's SGPR40
// is lane 2 of VGPR40 (DW_OP_regx VGPR40; DW_OP_LLVM_offset_uconst 8).
// outer: the return address is undefined (outermost frame).
.cfi_sections .debug_frame
.text
inner:
  .cfi_startproc
  .cfi_llvm_def_aspace_cfa 64, 0, 6
  .cfi_offset 16, 0
  .cfi_escape 0x14, 0x40, 0x40
  .cfi_escape 0x10, 0x48, 0x06, 0x90, 0xa8, 0x14, 0xe9, 0x05, 0x08
  s_nop 0
  s_nop 0
  s_setpc_b64 s[30:31]
  .cfi_endproc
middle:
  .cfi_startproc
  .cfi_llvm_def_aspace_cfa 64, 0, 6
  .cfi_offset 16, 0
  .cfi_escape 0x14, 0x40, 0x40
  .cfi_escape 0x10, 0x48, 0x06, 0x90, 0xa8, 0x14, 0xe9, 0x05, 0x08
  s_nop 0
  s_nop 0
  s_setpc_b64 s[30:31]
  .cfi_endproc
outer:
  .cfi_startproc
  .cfi_llvm_def_aspace_cfa 64, 0, 6
  .cfi_undefined 16
  s_nop 0
  s_setpc_b64 s[30:31]
  .cfi_endproc
