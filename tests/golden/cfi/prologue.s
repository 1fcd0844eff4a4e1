// Two functions with FDEs without instructions, as clang emits them: a leaf
// whose rows the prologue analyzer synthesizes, and one it must refuse (a
// call before the return address is saved).
.text
.cfi_sections .debug_frame
.globl leaf
.type leaf,@function
leaf:
  .cfi_startproc
  s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)
  v_add_u32_e32 v0, v1, v0
  s_setpc_b64 s[30:31]
  .cfi_endproc
.globl early_call
.type early_call,@function
early_call:
  .cfi_startproc
  s_getpc_b64 s[16:17]
  s_swappc_b64 s[30:31], s[16:17]
  s_setpc_b64 s[30:31]
  .cfi_endproc
