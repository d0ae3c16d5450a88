/* SPDX-License-Identifier: MIT */
/*
 * A collector stand-in for `gpuhier run` tests in builds where the real
 * libgpuhier-collector.so is not built: it loads and does nothing, which
 * is what the real one must do in a process that never initializes CUDA.
 */
int gh_cli_stub_collector_loaded = 1;
