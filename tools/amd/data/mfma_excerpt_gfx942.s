; The counter's test fixture (tools/amd/CMakeLists.txt, test amd.gfx942_count.excerpt): a trimmed
; excerpt of nova_f2x3_standard_fused_mfma_nhwc_f16_v1 of MFMA kernel v2 (commit 5d336fb) as clang-19
; compiles generated/f2x3_standard_kernels.hip for gfx942 (tools/check_kernel_compile.sh hip-gfx942
; with NOVA_KERNEL_ASM). The lines are the compiler's; cut: most of each block's arithmetic, the
; patch elements beyond four (interior: three in the header's run and the fourth in the block both
; paths share; border: three), the step loop's fragments beyond four, the bias channels beyond two,
; the fold and stores of the pixels beyond the first. Renamed nova_f1x2_excerpt_... so that the
; structure it keeps is the one a 1x1-output, 2x2-tile kernel would have: two tile-origin loops (the
; compiler's unrolled one and its remainder), a chunk loop holding one input-transform loop (4 patch
; elements of one channel, 2 bytes each: 8 bytes a lane) and one step loop (n^2 = 4 v_mfma an
; iteration, one tile group), no fp32 arithmetic in the chunk loop's own blocks or the step loop (the
; chunk header's v_mul_f32 is LLVM's integer division), and after it the one output fold (more fp32
; adds than the 4 bias adds) and the stores of one pixel's 4 channels (8 bytes). Labels renumbered.
; Expected output: mfma_excerpt_gfx942.expected (counted by hand, see the end of this file).
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
	s_lshl_b32 s3, s33, 9
	v_cmp_lt_i64_e64 s[6:7], s[4:5], 16
	s_cselect_b32 s15, s4, 16
	v_cmp_gt_i32_e32 vcc, s15, v0
	s_and_saveexec_b64 s[6:7], vcc
	s_cbranch_execz .LBB0_16
; %bb.1:
	s_load_dwordx2 s[10:11], s[0:1], 0x5c
	s_waitcnt lgkmcnt(0)
	v_cvt_f32_u32_e32 v1, s36
	v_rcp_iflag_f32_e32 v1, v1
	v_mul_f32_e32 v1, 0x4f7ffffe, v1
	v_cvt_u32_f32_e32 v1, v1
	v_cmp_lt_u32_e32 vcc, 1, v14
	s_and_b64 s[18:19], vcc, s[16:17]
	s_mov_b64 s[4:5], -1
	s_and_saveexec_b64 s[16:17], s[18:19]
	s_cbranch_execz .LBB0_9
; %bb.2:
	s_abs_i32 s3, s11
	v_and_b32_e32 v15, -2, v14
	v_mov_b64_e32 v[4:5], v[0:1]
	s_branch .LBB0_4
.LBB0_3:                                ;   in Loop: Header=BB0_4 Depth=1
	s_or_b64 exec, exec, s[4:5]
	v_mul_lo_u32 v1, v8, s10
	v_add_u32_e32 v17, -2, v17
	v_cmp_eq_u32_e32 vcc, 0, v17
	v_mad_u64_u32 v[6:7], s[4:5], v4, 12, s[42:43]
	v_mad_u64_u32 v[10:11], s[4:5], v5, 12, s[42:43]
	s_or_b64 s[20:21], vcc, s[20:21]
	ds_write2_b32 v6, v8, v13 offset1:1
	ds_write2_b32 v10, v12, v9 offset1:1
	ds_write_b32 v6, v1 offset:8
	ds_write_b32 v10, v2 offset:8
	s_andn2_b64 exec, exec, s[20:21]
	s_cbranch_execz .LBB0_8
.LBB0_4:                                ; =>This Inner Loop Header: Depth=1
	v_mov_b32_e32 v2, v4
	v_cmp_ne_u64_e32 vcc, 0, v[8:9]
                                        ; implicit-def: $vgpr8_vgpr9
	s_and_saveexec_b64 s[4:5], vcc
	s_xor_b64 s[24:25], exec, s[4:5]
	s_cbranch_execz .LBB0_6
; %bb.5:                                ;   in Loop: Header=BB0_4 Depth=1
	s_add_u32 s4, s10, s22
	v_cvt_f32_u32_e32 v1, s26
	v_fmac_f32_e32 v1, 0x4f800000, v2
	v_rcp_f32_e32 v1, v1
	v_trunc_f32_e32 v2, v2
	v_sub_co_u32_e32 v8, vcc, v1, v2
.LBB0_6:                                ;   in Loop: Header=BB0_4 Depth=1
	s_andn2_saveexec_b64 s[4:5], s[24:25]
	s_cbranch_execz .LBB0_3
; %bb.7:                                ;   in Loop: Header=BB0_4 Depth=1
	v_cvt_f32_u32_e32 v1, s10
	v_rcp_iflag_f32_e32 v1, v1
	s_nop 0
	v_mul_f32_e32 v1, 0x4f7ffffe, v1
	v_cvt_u32_f32_e32 v1, v1
	v_mul_hi_u32 v1, v10, v1
	v_cndmask_b32_e32 v12, v1, v7, vcc
	s_branch .LBB0_3
.LBB0_8:
	s_or_b64 exec, exec, s[20:21]
	v_cmp_ne_u32_e32 vcc, v14, v15
	v_add_u32_e32 v2, v0, v15
	s_orn2_b64 s[4:5], vcc, exec
.LBB0_9:
	s_or_b64 exec, exec, s[16:17]
	s_and_b64 exec, exec, s[4:5]
	s_cbranch_execz .LBB0_16
; %bb.10:
	s_abs_i32 s22, s11
	v_cvt_f32_u32_e32 v1, s22
	v_mov_b32_e32 v8, s42
	v_mad_u64_u32 v[8:9], s[2:3], v2, 12, v[8:9]
	s_mov_b64 s[4:5], 0
	s_branch .LBB0_12
.LBB0_11:                               ;   in Loop: Header=BB0_12 Depth=1
	s_or_b64 exec, exec, s[2:3]
	v_mul_lo_u32 v3, s25, v14
	v_add3_u32 v3, v6, s16, v3
	s_add_u32 s16, s16, s36
	s_addc_u32 s17, s17, 0
	ds_write2_b32 v8, v5, v3 offset0:1 offset1:2
	v_add_u32_e32 v3, s16, v2
	v_cmp_le_i32_e32 vcc, s15, v3
	ds_write_b32 v8, v14
	s_or_b64 s[4:5], vcc, s[4:5]
	v_add_u32_e32 v8, s24, v8
	s_andn2_b64 exec, exec, s[4:5]
	s_cbranch_execz .LBB0_16
.LBB0_12:                               ; =>This Inner Loop Header: Depth=1
	v_lshl_add_u64 v[12:13], v[10:11], 0, s[16:17]
	v_or_b32_e32 v5, s9, v13
	v_cmp_ne_u64_e32 vcc, 0, v[4:5]
                                        ; implicit-def: $vgpr14_vgpr15
	s_and_saveexec_b64 s[2:3], vcc
	s_xor_b64 s[18:19], exec, s[2:3]
	s_cbranch_execz .LBB0_14
; %bb.13:                               ;   in Loop: Header=BB0_12 Depth=1
	s_add_u32 s2, s10, s12
	v_cvt_f32_u32_e32 v3, s20
	v_cvt_f32_u32_e32 v5, s21
	v_sub_co_u32_e32 v14, vcc, v3, v5
.LBB0_14:                               ;   in Loop: Header=BB0_12 Depth=1
	s_andn2_saveexec_b64 s[2:3], s[18:19]
	s_cbranch_execz .LBB0_11
; %bb.15:                               ;   in Loop: Header=BB0_12 Depth=1
	v_cvt_f32_u32_e32 v3, s10
	v_rcp_iflag_f32_e32 v3, v3
	v_cndmask_b32_e32 v14, v3, v7, vcc
	s_branch .LBB0_11
.LBB0_16:
	s_or_b64 exec, exec, s[6:7]
	s_load_dwordx8 s[20:27], s[0:1], 0x0
	v_readfirstlane_b32 s40, v1
	v_mov_b64_e32 v[70:71], s[8:9]
	v_mov_b64_e32 v[72:73], s[10:11]
	s_cmp_lt_i32 s28, 1
	s_cbranch_scc1 .LBB0_38
; %bb.17:
	s_add_i32 s2, s28, 15
	s_and_b32 s61, s2, -16
	v_and_b32_e32 v3, 15, v0
	v_lshl_or_b32 v2, v3, 5, v2
	v_lshl_add_u64 v[82:83], v[2:3], 0, s[2:3]
	s_branch .LBB0_19
.LBB0_18:                               ;   in Loop: Header=BB0_19 Depth=1
	s_add_i32 s36, s36, s33
	s_cmp_ge_i32 s36, s61
	s_cbranch_scc1 .LBB0_38
.LBB0_19:                               ; =>This Loop Header: Depth=1
                                        ;     Child Loop BB0_22 Depth 2
                                        ;     Child Loop BB0_37 Depth 2
	s_sub_i32 s0, s61, s36
	s_min_i32 s37, s33, s0
	s_lshl_b32 s64, s37, 4
	v_cmp_gt_i32_e32 vcc, s64, v0
	s_barrier
	s_and_saveexec_b64 s[50:51], vcc
	s_cbranch_execz .LBB0_34
; %bb.20:                               ;   in Loop: Header=BB0_19 Depth=1
	s_abs_i32 s65, s37
	v_cvt_f32_u32_e32 v2, s65
	s_load_dword s0, s[48:49], 0xc
	v_rcp_iflag_f32_e32 v2, v2
	s_waitcnt lgkmcnt(0)
	v_mul_f32_e32 v2, 0x4f7ffffe, v2
	v_cvt_u32_f32_e32 v2, v2
	s_mov_b64 s[52:53], 0
	v_mov_b32_e32 v92, v0
	s_branch .LBB0_22
.LBB0_21:                               ;   in Loop: Header=BB0_22 Depth=2
	s_or_b64 exec, exec, s[0:1]
	v_sub_f32_e32 v2, v10, v2
	v_add_f32_e32 v87, v6, v10
	v_sub_f32_e32 v10, v10, v6
	v_sub_f32_e32 v6, v14, v6
	v_mad_u64_u32 v[2:3], s[0:1], s68, v93, v[84:85]
	v_cvt_f16_f32_e32 v3, v17
	v_cvt_f16_f32_e32 v9, v88
	v_lshl_add_u32 v2, v2, 1, 0
	ds_write_b16 v2, v3
	ds_write_b16 v2, v9 offset:512
	ds_write_b16 v2, v4 offset:1024
	ds_write_b16 v2, v5 offset:1536
	v_add_u32_e32 v92, s69, v92
	v_cmp_le_i32_e32 vcc, s64, v92
	s_or_b64 s[52:53], vcc, s[52:53]
	s_andn2_b64 exec, exec, s[52:53]
	s_cbranch_execz .LBB0_34
.LBB0_22:                               ;   Parent Loop BB0_19 Depth=1
                                        ; =>  This Inner Loop Header: Depth=2
	v_mul_hi_u32 v2, v92, v91
	v_add_u32_e32 v96, s36, v92
	s_mov_b64 s[54:55], 0
	v_mad_u64_u32 v[2:3], s[0:1], v3, 12, v[2:3]
	ds_read2_b32 v[4:5], v2 offset0:1 offset1:2
	ds_read_b32 v2, v2
	v_cmp_gt_i32_e64 s[0:1], s28, v3
	s_waitcnt lgkmcnt(0)
	s_and_b64 s[0:1], s[0:1], vcc
                                        ; implicit-def: $vgpr2_vgpr3_vgpr4_vgpr5_vgpr6_vgpr7_vgpr8_vgpr9_vgpr10_vgpr11_vgpr12_vgpr13_vgpr14_vgpr15_vgpr16_vgpr17
	s_and_saveexec_b64 s[2:3], s[0:1]
	s_xor_b64 s[0:1], exec, s[2:3]
	s_cbranch_execnz .LBB0_25
; %bb.23:                               ;   in Loop: Header=BB0_22 Depth=2
	s_or_saveexec_b64 s[58:59], s[0:1]
                                        ; implicit-def: $sgpr0
	s_xor_b64 exec, exec, s[58:59]
	s_cbranch_execnz .LBB0_26
.LBB0_24:                               ;   in Loop: Header=BB0_22 Depth=2
	s_or_b64 exec, exec, s[58:59]
	v_mov_b32_e32 v17, s0
	s_and_saveexec_b64 s[0:1], s[54:55]
	s_cbranch_execz .LBB0_21
	s_branch .LBB0_33
.LBB0_25:                               ;   in Loop: Header=BB0_22 Depth=2
	v_add_u32_e32 v16, s30, v102
	v_lshl_add_u64 v[2:3], v[88:89], 1, s[20:21]
	v_lshl_add_u64 v[4:5], v[2:3], 0, s[22:23]
	v_lshl_add_u64 v[6:7], v[6:7], 1, s[20:21]
	global_load_ushort v86, v[2:3], off
	global_load_ushort v88, v[4:5], off
	global_load_ushort v89, v[6:7], off
	s_mov_b64 s[54:55], exec
	s_waitcnt vmcnt(2)
	v_cvt_f32_f16_e32 v2, v86
	s_waitcnt vmcnt(1)
	v_cvt_f32_f16_e32 v3, v88
	s_waitcnt vmcnt(0)
	v_cvt_f32_f16_e32 v4, v89
	s_or_saveexec_b64 s[58:59], s[0:1]
                                        ; implicit-def: $sgpr0
	s_xor_b64 exec, exec, s[58:59]
	s_cbranch_execz .LBB0_24
.LBB0_26:                               ;   in Loop: Header=BB0_22 Depth=2
	v_cmp_lt_i32_e32 vcc, -1, v100
	v_cmp_gt_i32_e64 s[0:1], s29, v100
	s_and_b64 s[2:3], s[56:57], vcc
	s_and_b64 s[16:17], s[2:3], s[0:1]
	v_mov_b32_e32 v3, 0
	v_mov_b32_e32 v2, 0
	s_and_saveexec_b64 s[0:1], s[6:7]
	s_cbranch_execz .LBB0_28
; %bb.27:                               ;   in Loop: Header=BB0_22 Depth=2
	v_ashrrev_i32_e32 v89, 31, v88
	v_lshl_add_u64 v[4:5], v[88:89], 1, s[20:21]
	global_load_ushort v2, v[4:5], off
	s_waitcnt vmcnt(0)
	v_cvt_f32_f16_e32 v2, v2
.LBB0_28:                               ;   in Loop: Header=BB0_22 Depth=2
	s_or_b64 exec, exec, s[0:1]
	v_add_u32_e32 v16, 1, v87
	v_cmp_lt_i32_e64 s[6:7], -2, v87
	s_and_b64 s[10:11], s[0:1], s[8:9]
	s_and_saveexec_b64 s[0:1], s[10:11]
	s_cbranch_execz .LBB0_30
; %bb.29:                               ;   in Loop: Header=BB0_22 Depth=2
	v_add_u32_e32 v3, v16, v102
	v_mul_lo_u32 v3, s28, v3
	v_lshl_add_u64 v[4:5], v[4:5], 1, s[20:21]
	global_load_ushort v3, v[4:5], off
	s_waitcnt vmcnt(0)
	v_cvt_f32_f16_e32 v3, v3
.LBB0_30:                               ;   in Loop: Header=BB0_22 Depth=2
	s_or_b64 exec, exec, s[0:1]
	v_cmp_lt_i32_e64 s[10:11], -3, v87
	s_and_b64 s[18:19], s[0:1], s[12:13]
	v_mov_b32_e32 v4, 0
	s_and_saveexec_b64 s[0:1], s[18:19]
	s_cbranch_execz .LBB0_32
; %bb.31:                               ;   in Loop: Header=BB0_22 Depth=2
	v_add_u32_e32 v4, v97, v102
	v_lshl_add_u64 v[6:7], v[6:7], 1, s[20:21]
	global_load_ushort v4, v[6:7], off
	s_waitcnt vmcnt(0)
	v_cvt_f32_f16_e32 v4, v4
.LBB0_32:                               ;   in Loop: Header=BB0_22 Depth=2
	s_or_b64 exec, exec, s[0:1]
	s_andn2_b64 s[4:5], s[54:55], exec
	s_and_b64 s[2:3], s[2:3], exec
	s_mov_b32 s0, 0
	s_or_b64 s[54:55], s[4:5], s[2:3]
	s_or_b64 exec, exec, s[58:59]
	v_mov_b32_e32 v17, s0
	s_and_saveexec_b64 s[0:1], s[54:55]
	s_cbranch_execz .LBB0_21
.LBB0_33:                               ;   in Loop: Header=BB0_22 Depth=2
	v_add_u32_e32 v86, s62, v86
	v_ashrrev_i32_e32 v87, 31, v86
	v_lshl_add_u64 v[86:87], v[86:87], 1, s[20:21]
	global_load_ushort v17, v[86:87], off
	s_waitcnt vmcnt(0)
	v_cvt_f32_f16_e32 v17, v17
	s_branch .LBB0_21
.LBB0_34:                               ;   in Loop: Header=BB0_19 Depth=1
	s_or_b64 exec, exec, s[50:51]
	s_andn2_b64 vcc, exec, s[44:45]
	s_waitcnt lgkmcnt(0)
	s_barrier
	s_cbranch_vccnz .LBB0_18
; %bb.35:                               ;   in Loop: Header=BB0_19 Depth=1
	s_cmp_lt_i32 s37, 16
	s_cbranch_scc1 .LBB0_18
; %bb.36:                               ;   in Loop: Header=BB0_19 Depth=1
	s_ashr_i32 s1, s36, 31
	s_lshl_b64 s[2:3], s[2:3], 13
	s_ashr_i32 s0, s37, 4
	v_lshl_add_u64 v[2:3], v[82:83], 0, s[2:3]
	v_mov_b32_e32 v4, v90
.LBB0_37:                               ;   Parent Loop BB0_19 Depth=1
                                        ; =>  This Inner Loop Header: Depth=2
	global_load_dwordx2 v[14:15], v[2:3], off offset:-4096
	global_load_dwordx2 v[16:17], v[2:3], off offset:-3584
	global_load_dwordx2 v[86:87], v[2:3], off offset:-3072
	global_load_dwordx2 v[88:89], v[2:3], off offset:-2560
	ds_read2st64_b64 v[6:9], v4 offset1:1
	ds_read2st64_b64 v[10:13], v4 offset0:2 offset1:3
	s_add_i32 s0, s0, -1
	s_cmp_lg_u32 s0, 0
	s_waitcnt vmcnt(3) lgkmcnt(1)
	v_mfma_f32_16x16x16_f16 v[70:73], v[14:15], v[6:7], v[70:73]
	s_waitcnt vmcnt(2)
	v_mfma_f32_16x16x16_f16 v[42:45], v[16:17], v[8:9], v[42:45]
	v_lshl_add_u64 v[2:3], v[2:3], 0, s[38:39]
	s_waitcnt vmcnt(1) lgkmcnt(0)
	v_mfma_f32_16x16x16_f16 v[38:41], v[86:87], v[10:11], v[38:41]
	v_add_u32_e32 v4, 0x2000, v4
	s_waitcnt vmcnt(0)
	v_mfma_f32_16x16x16_f16 v[34:37], v[88:89], v[12:13], v[34:37]
	s_cbranch_scc1 .LBB0_37
	s_branch .LBB0_18
.LBB0_38:
	s_and_b64 vcc, exec, s[44:45]
	s_cbranch_vccz .LBB0_54
; %bb.39:
	v_and_b32_e32 v14, 12, v1
	v_lshl_or_b32 v2, s60, 4, v14
	v_cmp_gt_i32_e32 vcc, s35, v2
	s_and_saveexec_b64 s[0:1], vcc
	s_cbranch_execz .LBB0_54
; %bb.40:
	s_waitcnt lgkmcnt(0)
	s_cmp_lg_u64 s[26:27], 0
	s_cselect_b64 s[2:3], -1, 0
	s_cmp_eq_u64 s[26:27], 0
	v_mov_b32_e32 v15, 0
	v_mov_b32_e32 v16, 0
	s_cbranch_scc1 .LBB0_42
; %bb.41:
	v_ashrrev_i32_e32 v3, 31, v2
	v_lshl_add_u64 v[4:5], v[2:3], 2, s[26:27]
	global_load_dword v16, v[4:5], off
.LBB0_42:
	v_cndmask_b32_e64 v1, 0, 1, s[2:3]
	v_cmp_ne_u32_e64 s[0:1], 1, v1
	s_andn2_b64 vcc, exec, s[2:3]
	s_cbranch_vccnz .LBB0_46
; %bb.43:
	v_or_b32_e32 v1, 1, v2
	v_cmp_gt_i32_e32 vcc, s35, v1
	v_mov_b32_e32 v15, 0
	s_and_saveexec_b64 s[2:3], vcc
	s_cbranch_execz .LBB0_45
; %bb.44:
	v_ashrrev_i32_e32 v3, 31, v2
	v_lshl_add_u64 v[4:5], v[2:3], 2, s[26:27]
	global_load_dword v15, v[4:5], off offset:4
.LBB0_45:
	s_or_b64 exec, exec, s[2:3]
.LBB0_46:
	v_and_b32_e32 v0, 15, v0
	v_cmp_gt_i32_e32 vcc, s15, v0
	s_and_b64 exec, exec, vcc
	s_cbranch_execz .LBB0_54
; %bb.47:
	v_add_f32_e32 v3, v74, v54
	v_mad_u32_u24 v0, v0, 12, s42
	v_add_f32_e32 v1, v78, v66
	v_add_f32_e32 v78, v3, v50
	ds_read2_b32 v[4:5], v0 offset1:1
	ds_read_b32 v0, v0 offset:8
	s_and_b32 s0, s35, 3
	s_cmp_lg_u32 s0, 0
	s_waitcnt lgkmcnt(0)
	s_cselect_b64 s[2:3], -1, 0
	v_cmp_gt_i32_e64 s[4:5], s41, v0
	s_cmp_eq_u32 s34, 0
	v_cndmask_b32_e64 v3, 0, 1, s[2:3]
	s_cselect_b64 s[0:1], -1, 0
	v_cmp_ne_u32_e64 s[2:3], 1, v3
	s_and_saveexec_b64 s[10:11], s[4:5]
	s_cbranch_execz .LBB0_53
; %bb.48:
	v_add_f32_e32 v7, v72, v44
	v_add_f32_e32 v3, v70, v42
	v_add_f32_e32 v7, v7, v40
	v_add_f32_e32 v3, v3, v38
	s_waitcnt vmcnt(0)
	v_add_f32_e32 v3, v16, v3
	v_max_f32_e32 v7, 0, v3
	v_cndmask_b32_e64 v7, v7, v3, s[0:1]
	v_add_f32_e32 v3, v15, v4
	v_max_f32_e32 v4, 0, v3
	v_cndmask_b32_e64 v4, v4, v3, s[0:1]
	v_mad_u64_u32 v[8:9], s[6:7], v6, s41, v[0:1]
	v_ashrrev_i32_e32 v9, 31, v8
	s_and_b64 vcc, exec, s[2:3]
	v_lshl_add_u64 v[8:9], v[8:9], 1, s[24:25]
	s_cbranch_vccnz .LBB0_55
; %bb.49:
	v_mov_b32_e32 v3, 0
	s_mov_b64 s[12:13], 0
	v_mov_b64_e32 v[12:13], v[8:9]
	s_mov_b64 s[16:17], 0
.LBB0_50:                               ; =>This Inner Loop Header: Depth=1
	s_cmp_eq_u32 s16, 1
	s_cselect_b64 vcc, -1, 0
	v_add_u32_e32 v3, s16, v10
	v_cndmask_b32_e32 v11, v7, v4, vcc
	v_cmp_le_i32_e32 vcc, s35, v3
	v_cvt_f16_f32_e32 v3, v3
	s_or_b64 s[6:7], s[6:7], vcc
	s_add_u32 s16, s16, 1
	s_addc_u32 s17, s17, 0
	s_and_b64 s[6:7], exec, s[6:7]
	global_store_short v[12:13], v3, off
	s_or_b64 s[12:13], s[6:7], s[12:13]
	v_lshl_add_u64 v[12:13], v[12:13], 0, 2
	s_andn2_b64 exec, exec, s[12:13]
	s_cbranch_execnz .LBB0_50
; %bb.51:
	s_or_b64 exec, exec, s[12:13]
	s_branch .LBB0_53
.LBB0_52:
	v_cvt_f16_f32_e32 v3, v7
	v_cvt_f16_f32_e32 v4, v4
	v_pack_b32_f16 v10, v3, v4
	global_store_dwordx2 v[8:9], v[10:11], off
.LBB0_53:
	s_or_b64 exec, exec, s[10:11]
.LBB0_54:
	s_endpgm
.LBB0_55:
	s_cbranch_execnz .LBB0_52
	s_branch .LBB0_53
.Lfunc_end0:
	.size	nova_f1x2_excerpt_fused_mfma_nhwc_f16_v1, .Lfunc_end0-nova_f1x2_excerpt_fused_mfma_nhwc_f16_v1
                                        ; -- End function
	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; codeLenInByte = 9556
; NumSgprs: 80
; NumVgprs: 106
; TotalNumVgprs: 106
; ScratchSize: 0
; Occupancy: 4
	.text
; How the expected paths (the "path" lines of mfma_excerpt_gfx942.expected) follow from the blocks,
; with the counter's path weight 16 mfma + 4 (valu + LDS + global instructions) + salu + smem:
;   step loop: .LBB0_37 is one block (its own back edge, leaving by s_branch .LBB0_18), so
;     steps_repeat = steps_leave = .LBB0_37: 4 v_mfma = n^2 x 1 tile group (n = 2).
;   chunk loop, costliest (nested loops at no cost): .LBB0_19 %bb.20 (23 over the direct edge to
;     .LBB0_34) .LBB0_34 %bb.35 %bb.36 .LBB0_18, for repeat and leave alike (.LBB0_18 holds both
;     edges). Its own blocks and the step loop have no fp32 add or FMA (%bb.20's v_mul_f32 is not one).
;   transform, interior (cheapest loading exactly 8 bytes): .LBB0_22 .LBB0_25 .LBB0_24 .LBB0_33
;     .LBB0_21 (6 + 2 bytes, weight 156; the other 8-byte paths add border blocks: 198 and more).
;   transform, border (costliest loading at most 16 bytes): every block of the loop but %bb.23 and
;     .LBB0_24, .LBB0_22 .LBB0_25 .LBB0_26 %bb.27 .LBB0_28 %bb.29 .LBB0_30 %bb.31 .LBB0_32 .LBB0_33
;     .LBB0_21 (6 + 2 + 2 + 2 + 2 = 14 bytes, weight 254).
;   outside (cheapest storing exactly 8 bytes; origin loops whole, the store loop 4 times):
;     %bb.0 .LBB0_16 .LBB0_38 %bb.39 %bb.40 .LBB0_42 .LBB0_46 %bb.47 %bb.48 .LBB0_55 .LBB0_52 .LBB0_53
;     .LBB0_54 (weight 183; through the store loop .LBB0_50 4 times instead of .LBB0_52: 306). Its
;     fp32 adds, 9 (%bb.47's 3, %bb.48's 6), are more than the 4 bias adds of one pixel: the fold.
