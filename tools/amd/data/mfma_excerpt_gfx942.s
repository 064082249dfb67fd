; The counter's test fixture (tools/amd/CMakeLists.txt, test amd.gfx942_count.excerpt): a trimmed
; excerpt of nova_f2x3_standard_fused_mfma_nhwc_f16_v1 as clang-19 compiles
; generated/f2x3_standard_kernels.hip for gfx942 (tools/check_kernel_compile.sh hip-gfx942 with
; NOVA_KERNEL_ASM). The lines are the compiler's; cut: most of each block's arithmetic, the patch
; elements beyond four (the third and fourth share one 8-byte load here, or four 2-byte ones), the
; border path's elements beyond one, two of the four step loops and half of each loop's v_mfma, the
; epilogue's pixels beyond one. Renamed nova_f1x2_excerpt_... so that the structure it keeps is the
; one a 1x1-output, 2x2-tile kernel would have: n = 2 step loops of 2 v_mfma, an input transform that
; loads 4 patch elements (16 bytes a lane), an epilogue that stores one pixel's 4 channels (8 bytes).
; Labels renumbered. Expected output: mfma_excerpt_gfx942.expected (counted by hand, see there).
	.text
	.protected	nova_f1x2_excerpt_fused_mfma_nhwc_f16_v1 ; -- Begin function nova_f1x2_excerpt_fused_mfma_nhwc_f16_v1
	.globl	nova_f1x2_excerpt_fused_mfma_nhwc_f16_v1
	.p2align	8
	.type	nova_f1x2_excerpt_fused_mfma_nhwc_f16_v1,@function
nova_f1x2_excerpt_fused_mfma_nhwc_f16_v1: ; @nova_f1x2_excerpt_fused_mfma_nhwc_f16_v1
; %bb.0:
	s_load_dword s33, s[0:1], 0x30
	s_load_dwordx2 s[34:35], s[0:1], 0x20
	s_waitcnt lgkmcnt(0)
	s_lshl_b32 s6, s33, 9
	v_cmp_gt_i32_e32 vcc, s23, v0
	s_and_saveexec_b64 s[6:7], vcc
	s_cbranch_execz .LBB0_5
; %bb.1:
	v_mov_b32_e32 v4, 0
	v_mov_b32_e32 v8, s42
	s_mov_b64 s[10:11], 0
	s_branch .LBB0_3
.LBB0_2:                                ;   in Loop: Header=BB0_3 Depth=1
	s_or_b64 exec, exec, s[4:5]
	v_lshlrev_b32_e32 v5, 1, v5
	ds_write2_b32 v8, v5, v3 offset0:1 offset1:2
	v_cmp_le_i32_e32 vcc, s23, v3
	ds_write_b32 v8, v14
	s_or_b64 s[10:11], vcc, s[10:11]
	v_add_u32_e32 v8, s24, v8
	s_andn2_b64 exec, exec, s[10:11]
	s_cbranch_execz .LBB0_5
.LBB0_3:                                ; =>This Inner Loop Header: Depth=1
	v_lshl_add_u64 v[12:13], v[10:11], 0, s[14:15]
	v_cmp_ne_u64_e32 vcc, 0, v[4:5]
                                        ; implicit-def: $vgpr14_vgpr15
	s_and_saveexec_b64 s[4:5], vcc
	s_cbranch_execz .LBB0_2
; %bb.4:                                ;   in Loop: Header=BB0_3 Depth=1
	v_cvt_f32_u32_e32 v3, s8
	v_rcp_iflag_f32_e32 v3, v3
	s_nop 0
	v_cndmask_b32_e32 v14, v3, v7, vcc
	s_branch .LBB0_2
.LBB0_5:
	s_or_b64 exec, exec, s[6:7]
	s_load_dwordx8 s[24:31], s[0:1], 0x0
	v_readfirstlane_b32 s40, v1
	s_cmp_lt_i32 s36, 1
	v_mov_b32_e32 v81, 0
	s_cbranch_scc1 .LBB0_41
; %bb.6:
	s_add_i32 s2, s36, 15
	s_and_b32 s65, s2, -16
	s_branch .LBB0_9
.LBB0_7:                                ;   in Loop: Header=BB0_9 Depth=1
	v_pk_fma_f32 v[66:67], v[2:3], 0.5, v[66:67] op_sel_hi:[1,0,1]
	v_pk_fma_f32 v[68:69], v[4:5], 0.5, v[68:69] op_sel_hi:[1,0,1]
	v_pk_add_f32 v[70:71], v[6:7], v[70:71]
.LBB0_8:                                ;   in Loop: Header=BB0_9 Depth=1
	s_add_i32 s71, s71, s33
	s_cmp_ge_i32 s71, s65
	s_cbranch_scc1 .LBB0_41
.LBB0_9:                                ; =>This Loop Header: Depth=1
                                        ;     Child Loop BB0_13 Depth 2
                                        ;     Child Loop BB0_33 Depth 2
                                        ;     Child Loop BB0_37 Depth 2
	s_sub_i32 s0, s65, s71
	v_cmp_gt_i32_e32 vcc, s72, v0
	s_barrier
	s_and_saveexec_b64 s[52:53], vcc
	s_cbranch_execz .LBB0_30
; %bb.10:                               ;   in Loop: Header=BB0_9 Depth=1
	s_mov_b64 s[54:55], 0
	v_mov_b32_e32 v2, v105
	s_branch .LBB0_13
.LBB0_11:                               ;   in Loop: Header=BB0_13 Depth=2
	s_or_b64 exec, exec, s[6:7]
.LBB0_12:                               ;   in Loop: Header=BB0_13 Depth=2
	s_or_b64 exec, exec, s[56:57]
	s_waitcnt vmcnt(0)
	v_cvt_f32_f16_e32 v24, v26
	v_pack_b32_f16 v7, v8, v7
	v_cmp_le_i32_e32 vcc, s72, v4
	s_or_b64 s[54:55], vcc, s[54:55]
	ds_write2st64_b32 v6, v7, v8 offset1:2
	ds_write2st64_b32 v6, v9, v10 offset0:4 offset1:6
	s_andn2_b64 exec, exec, s[54:55]
	s_cbranch_execz .LBB0_30
.LBB0_13:                               ;   Parent Loop BB0_9 Depth=1
                                        ; =>  This Inner Loop Header: Depth=2
	v_mad_u64_u32 v[6:7], s[0:1], v7, 12, v[6:7]
	ds_read2_b32 v[8:9], v6 offset0:1 offset1:2
	ds_read_b32 v6, v6
	s_waitcnt lgkmcnt(0)
	v_cmp_ge_i32_e32 vcc, s38, v6
	s_and_b64 s[6:7], s[6:7], vcc
	s_and_saveexec_b64 s[8:9], s[6:7]
	s_xor_b64 s[6:7], exec, s[8:9]
	s_cbranch_execz .LBB0_23
; %bb.14:                               ;   in Loop: Header=BB0_13 Depth=2
	v_lshl_add_u64 v[10:11], v[18:19], 1, s[24:25]
	s_and_b64 vcc, exec, s[26:27]
	s_cbranch_vccz .LBB0_16
; %bb.15:                               ;   in Loop: Header=BB0_13 Depth=2
	global_load_dword v7, v[10:11], off
	s_cbranch_execz .LBB0_16
	s_branch .LBB0_17
.LBB0_16:                               ;   in Loop: Header=BB0_13 Depth=2
	v_lshl_add_u64 v[6:7], v[10:11], 0, v[82:83]
	global_load_ushort v8, v[10:11], off
	s_nop 0
	global_load_ushort v6, v[6:7], off
	s_waitcnt vmcnt(0)
	v_perm_b32 v7, v6, v8, s70
.LBB0_17:                               ;   in Loop: Header=BB0_13 Depth=2
	v_lshl_add_u64 v[12:13], s[50:51], 1, v[10:11]
	s_and_b64 vcc, exec, s[26:27]
	s_cbranch_vccz .LBB0_19
; %bb.18:                               ;   in Loop: Header=BB0_13 Depth=2
	global_load_dword v9, v[12:13], off
	v_cndmask_b32_e64 v18, 0, 1, s[0:1]
	s_cbranch_execz .LBB0_19
	s_branch .LBB0_20
.LBB0_19:                               ;   in Loop: Header=BB0_13 Depth=2
	v_cndmask_b32_e64 v18, 0, 1, s[0:1]
	global_load_ushort v6, v[12:13], off
	s_nop 0
	global_load_ushort v8, v[8:9], off
	s_waitcnt vmcnt(0)
	v_perm_b32 v9, v8, v6, s70
.LBB0_20:                               ;   in Loop: Header=BB0_13 Depth=2
	v_add_u32_e32 v19, 2, v20
	v_lshl_add_u64 v[12:13], v[12:13], 1, s[24:25]
	s_and_b64 vcc, exec, s[26:27]
	s_cbranch_vccz .LBB0_22
; %bb.21:                               ;   in Loop: Header=BB0_13 Depth=2
	global_load_dwordx2 v[10:11], v[12:13], off
	s_cbranch_execz .LBB0_22
	s_branch .LBB0_23
.LBB0_22:                               ;   in Loop: Header=BB0_13 Depth=2
	global_load_ushort v14, v[12:13], off
	global_load_ushort v15, v[12:13], off offset:2
	global_load_ushort v16, v[16:17], off
	global_load_ushort v17, v[16:17], off offset:2
	s_waitcnt vmcnt(0)
	v_perm_b32 v10, v15, v14, s70
	v_perm_b32 v11, v17, v16, s70
.LBB0_23:                               ;   in Loop: Header=BB0_13 Depth=2
	s_andn2_saveexec_b64 s[56:57], s[6:7]
	s_cbranch_execz .LBB0_12
; %bb.24:                               ;   in Loop: Header=BB0_13 Depth=2
	v_cmp_lt_i32_e32 vcc, -1, v27
	s_and_b64 s[10:11], s[6:7], vcc
	s_and_b64 vcc, exec, s[26:27]
	s_cbranch_vccz .LBB0_28
; %bb.25:                               ;   in Loop: Header=BB0_13 Depth=2
	v_mov_b32_e32 v7, 0
	s_and_saveexec_b64 s[12:13], s[10:11]
	s_cbranch_execz .LBB0_27
; %bb.26:                               ;   in Loop: Header=BB0_13 Depth=2
	v_ashrrev_i32_e32 v19, 31, v18
	v_lshl_add_u64 v[6:7], v[18:19], 1, s[24:25]
	global_load_dword v7, v[6:7], off
.LBB0_27:                               ;   in Loop: Header=BB0_13 Depth=2
	s_or_b64 exec, exec, s[12:13]
	s_cbranch_execnz .LBB0_12
	s_branch .LBB0_28
.LBB0_28:                               ;   in Loop: Header=BB0_13 Depth=2
	v_mov_b32_e32 v19, 0
	s_and_saveexec_b64 s[6:7], s[4:5]
	s_cbranch_execz .LBB0_11
; %bb.29:                               ;   in Loop: Header=BB0_13 Depth=2
	v_lshl_add_u64 v[18:19], v[18:19], 1, s[24:25]
	v_lshl_add_u64 v[20:21], v[18:19], 0, v[82:83]
	global_load_ushort v18, v[18:19], off
	s_nop 0
	global_load_ushort v19, v[20:21], off
	s_waitcnt vmcnt(0)
	v_perm_b32 v19, v19, v18, s70
	s_branch .LBB0_11
.LBB0_30:                               ;   in Loop: Header=BB0_9 Depth=1
	s_or_b64 exec, exec, s[52:53]
	s_andn2_b64 vcc, exec, s[44:45]
	s_barrier
	s_cbranch_vccnz .LBB0_8
; %bb.31:                               ;   in Loop: Header=BB0_9 Depth=1
	s_lshl_b64 s[0:1], s[0:1], 13
	v_lshl_add_u64 v[86:87], v[84:85], 0, s[0:1]
	global_load_dwordx2 v[94:95], v[86:87], off
	global_load_dwordx2 v[92:93], v[86:87], off offset:512
	s_cmp_lt_i32 s2, 16
	v_mov_b32_e32 v17, 0
	s_cbranch_scc1 .LBB0_34
; %bb.32:                               ;   in Loop: Header=BB0_9 Depth=1
	v_mov_b32_e32 v2, 0
	v_mov_b32_e32 v3, v2
	s_mov_b32 s0, 0
	s_mov_b32 s1, 16
.LBB0_33:                               ;   Parent Loop BB0_9 Depth=1
                                        ; =>  This Inner Loop Header: Depth=2
	ds_read2st64_b64 v[20:23], v18 offset1:1
	s_add_i32 s0, s0, 1
	s_cmp_lt_i32 s0, s6
	s_waitcnt vmcnt(1) lgkmcnt(0)
	v_mfma_f32_16x16x16_f16 v[14:17], v[94:95], v[20:21], v[14:17]
	v_lshl_add_u64 v[20:21], s[2:3], 1, v[86:87]
	v_mfma_f32_16x16x16_f16 v[10:13], v[92:93], v[22:23], v[10:13]
	global_load_dwordx2 v[94:95], v[20:21], off
	global_load_dwordx2 v[92:93], v[20:21], off offset:512
	v_add_u32_e32 v18, 0x2000, v18
	s_cbranch_scc0 .LBB0_33
	s_branch .LBB0_35
.LBB0_34:                               ;   in Loop: Header=BB0_9 Depth=1
	v_mov_b32_e32 v16, v17
	v_mov_b32_e32 v15, v17
.LBB0_35:                               ;   in Loop: Header=BB0_9 Depth=1
	v_cndmask_b32_e64 v26, 0, 1, s[4:5]
	s_andn2_b64 vcc, exec, s[4:5]
	s_cbranch_vccnz .LBB0_39
; %bb.36:                               ;   in Loop: Header=BB0_9 Depth=1
	v_mov_b32_e32 v26, 0
	v_mov_b32_e32 v27, v26
	s_mov_b32 s2, 0
.LBB0_37:                               ;   Parent Loop BB0_9 Depth=1
                                        ; =>  This Inner Loop Header: Depth=2
	ds_read2st64_b64 v[64:67], v62 offset1:1
	s_lshl_b32 s8, s5, 8
	v_lshl_add_u64 v[74:75], s[10:11], 1, v[220:221]
	s_waitcnt vmcnt(1) lgkmcnt(0)
	v_mfma_f32_16x16x16_f16 v[38:41], v[94:95], v[64:65], v[38:41]
	global_load_dwordx2 v[84:85], v[74:75], off
	v_mfma_f32_16x16x16_f16 v[34:37], v[92:93], v[66:67], v[34:37]
	s_cmp_lg_u32 s6, s2
	s_cbranch_scc0 .LBB0_40
; %bb.38:                               ;   in Loop: Header=BB0_37 Depth=2
	s_waitcnt vmcnt(0)
	v_mov_b64_e32 v[92:93], v[84:85]
	v_mov_b64_e32 v[94:95], v[84:85]
	s_add_i32 s2, s2, 1
	s_branch .LBB0_37
.LBB0_39:                               ;   in Loop: Header=BB0_9 Depth=1
	v_mov_b32_e32 v40, v41
	v_mov_b32_e32 v39, v41
.LBB0_40:                               ;   in Loop: Header=BB0_9 Depth=1
	v_pk_add_f32 v[2:3], v[38:39], v[14:15]
	v_pk_add_f32 v[4:5], v[34:35], v[10:11]
	s_branch .LBB0_7
.LBB0_41:
	s_load_dwordx2 s[4:5], s[0:1], 0x68
	v_cmp_gt_i32_e32 vcc, s64, v1
	s_and_saveexec_b64 s[0:1], vcc
	s_cbranch_execz .LBB0_46
; %bb.42:
	global_load_dword v6, v[4:5], off
	s_waitcnt vmcnt(0)
	v_add_f32_e32 v2, v2, v6
	v_max_f32_e32 v2, 0, v2
	s_and_b64 vcc, exec, s[26:27]
	s_cbranch_vccnz .LBB0_45
; %bb.43:
	v_mov_b32_e32 v7, v2
	s_mov_b32 s2, 0
.LBB0_44:                               ; =>This Inner Loop Header: Depth=1
	v_cvt_f16_f32_e32 v8, v7
	global_store_short v[10:11], v8, off
	s_add_i32 s2, s2, 1
	s_cmp_eq_u32 s2, 4
	s_cbranch_scc0 .LBB0_44
	s_branch .LBB0_46
.LBB0_45:
	v_cvt_f16_f32_e32 v8, v2
	v_pack_b32_f16 v8, v8, v9
	global_store_dwordx2 v[10:11], v[8:9], off
.LBB0_46:
	s_endpgm
.Lfunc_end0:
	.size	nova_f1x2_excerpt_fused_mfma_nhwc_f16_v1, .Lfunc_end0-nova_f1x2_excerpt_fused_mfma_nhwc_f16_v1
                                        ; -- End function
	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; codeLenInByte = 30492
; NumSgprs: 102
; NumVgprs: 118
; TotalNumVgprs: 118
; ScratchSize: 0
; Occupancy: 4
	.text
; How the expected paths (the "path" lines of mfma_excerpt_gfx942.expected) follow from the blocks,
; with the counter's path weight 16 mfma + 4 (valu + LDS + global instructions) + salu + smem:
;   step loops: .LBB0_33 is one block (its own back edge); .LBB0_37 repeats through %bb.38 and
;     leaves from its header, so steps_repeat = .LBB0_33 + .LBB0_37 + %bb.38 and steps_leave =
;     .LBB0_33 + .LBB0_37: 4 v_mfma either way, so 1 tile group (n = 2).
;   chunk loop, costliest: .LBB0_9 %bb.10 (the transform loop, counted apart) .LBB0_30 %bb.31
;     %bb.32 (10 over .LBB0_34's 8) .LBB0_35 %bb.36 (9 over .LBB0_39's 8) .LBB0_40 .LBB0_7 .LBB0_8.
;   transform, interior (cheapest loading exactly 16 bytes): .LBB0_13 %bb.14 %bb.15 .LBB0_17
;     %bb.18 .LBB0_20 %bb.21 .LBB0_23 .LBB0_12 (4 + 4 + 8 bytes, weight 78).
;   transform, border (costliest loading at most 32 bytes): both loads of the first two elements,
;     .LBB0_22's four 2-byte loads for the last two, and the whole border path .LBB0_23 %bb.24
;     %bb.25 %bb.26 .LBB0_27 .LBB0_28 %bb.29 .LBB0_11 .LBB0_12 (8 + 8 + 8 + 4 + 4 bytes, weight 180).
;   outside (cheapest storing exactly 8 bytes): %bb.0 .LBB0_5 .LBB0_41 %bb.42 .LBB0_45 .LBB0_46
;     (weight 50, against 83 through the store loop .LBB0_44 four times).
