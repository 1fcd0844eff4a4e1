// Source of draft.o: the seed-era DW_CFA_LLVM_def_cfa_aspace (0x2f) after a def_cfa.
.cfi_sections .debug_frame
.text
f:
  .cfi_startproc
  .cfi_def_cfa 64, 16
  s_nop 0
  .cfi_escape 0x2f, 0x06
  s_setpc_b64 s[30:31]
  .cfi_endproc
