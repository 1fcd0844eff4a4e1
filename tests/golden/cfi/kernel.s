// Source of kernel.o: llvm-mc-19 -triple amdgcn-amd-amdhsa -mcpu=gfx900 -filetype=obj kernel.s -o kernel.o
.cfi_sections .debug_frame
.text
callee:
  .cfi_startproc
  .cfi_undefined 16
  s_mov_b32 s33, s32
  .cfi_llvm_def_aspace_cfa 65, 0, 6
  s_add_u32 s32, s32, 0x400
  .cfi_offset 36, 4
  // SGPR40 saved in lane 2 of VGPR40 (wave64): DW_OP_regx VGPR40; DW_OP_LLVM_offset_uconst 8
  .cfi_escape 0x10, 0x48, 0x06, 0x90, 0xa8, 0x14, 0xe9, 0x05, 0x08
  .cfi_remember_state
  s_nop 0
  .cfi_restore_state
  .cfi_def_cfa_register 64
  s_setpc_b64 s[30:31]
  .cfi_endproc
