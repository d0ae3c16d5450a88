# SPDX-License-Identifier: MIT
"""SYNTHETIC inputs for the CPU tests of inst_agree.py, spread_agree.py and
bench/instrument_cost.py: gpuhier reports built from schema/schema.sql with
made-up counts, and ncu `--csv --page raw --print-units base` text in the
layout of the output recorded on the H200 (testdata/), with made-up values.
Nothing here was measured."""
import csv
import io
import os
import sqlite3

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
ID_COLS = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
           "Block Size", "Grid Size", "Device", "CC"]


def ncu_text(launches, metric_names, units=None):
    """launches: [(kernel, block '(256, 1, 1)', grid, {metric: value or 'a;b' text})]."""
    buf = io.StringIO()
    w = csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\n")
    w.writerow(ID_COLS + list(metric_names))
    w.writerow([""] * len(ID_COLS) + [(units or {}).get(m, "") for m in metric_names])
    for i, (k, b, g, m) in enumerate(launches):
        row = [str(i), "100", "synthetic", "127.0.0.1", k, "1", "7", b, g, "0", "9.0"]
        for n in metric_names:
            v = m.get(n, "")
            row.append(v if isinstance(v, str) else "{:,}".format(v) if float(v).is_integer() else repr(v))
        w.writerow(row)
    return "==PROF== Connected to process 100 (synthetic)\nsynthetic program output\n" + buf.getvalue()


class Report:
    """A synthetic report on the real schema."""

    def __init__(self, path):
        if os.path.exists(path):
            os.remove(path)
        self.db = sqlite3.connect(path)
        self.db.executescript(open(os.path.join(ROOT, "schema", "schema.sql")).read())
        self.corr = 0
        self.names = {}
        self.kernels = {}
        self.configs = {}
        self.db.execute("INSERT INTO cubin (crc, bytes, sm_arch, has_lineinfo) VALUES (7, 100, 90, 1)")

    def metric_id(self, name):
        if name not in self.names:
            self.names[name] = self.db.execute("INSERT INTO metric_name (name) VALUES (?)", (name,)).lastrowid
        return self.names[name]

    def launch(self, mangled, grid=(1, 1, 1), block=(32, 1, 1), reason="sampled_out", profiled=0):
        if mangled not in self.kernels:
            kid = self.db.execute("INSERT INTO kernel (mangled_name, demangled_name) VALUES (?, ?)",
                                  (mangled, mangled)).lastrowid
            fid = self.db.execute("INSERT INTO sass_function (cubin_crc, name, kernel_id) VALUES (7, ?, ?)",
                                  (mangled, kid)).lastrowid
            self.kernels[mangled] = (kid, fid)
        kid, fid = self.kernels[mangled]
        ck = (mangled, grid, block)
        if ck not in self.configs:
            self.configs[ck] = [self.db.execute(
                "INSERT INTO config (kernel_id, grid_x, grid_y, grid_z, block_x, block_y, block_z)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)", (kid,) + grid + block).lastrowid, 0]
        cid, n = self.configs[ck]
        self.configs[ck][1] += 1
        self.corr += 1
        lid = self.db.execute(
            "INSERT INTO launch (kernel_id, config_id, correlation_id, config_launch_index, profiled, profile_reason)"
            " VALUES (?, ?, ?, ?, ?, ?)", (kid, cid, self.corr, n, profiled, reason)).lastrowid
        return lid, kid, cid, fid

    def instrumented(self, mangled, counts, grid=(1, 1, 1), block=(32, 1, 1), overhead_ns=None, graph_corr=None,
                     runs=None, implied=None):
        """counts: {metric: [value per pc]} (zero values are left out, as the collector does); runs: the same,
        written as schema.sql's inst_run (a row where the value changes, a 0 row ending the last run); implied:
        [mask per pc], written as inst_count's 'gpuhier_inst_implied' rows (schema version 4)."""
        if implied:
            counts = dict(counts, gpuhier_inst_implied=implied)
        lid, kid, cid, fid = self.launch(mangled, grid, block, "instrumented")
        self.db.execute("INSERT INTO inst_launch (launch_id, config_id, kernel_id, reason, overhead_ns, graph_corr)"
                        " VALUES (?, ?, ?, 'sample_all', ?, ?)", (lid, cid, kid, overhead_ns, graph_corr))
        for m, vals in counts.items():
            for pc, v in enumerate(vals):
                if v:
                    self.db.execute("INSERT INTO inst_count VALUES (?, ?, ?, ?, ?)",
                                    (lid, fid, 16 * pc, self.metric_id(m), v))
        for m, vals in (runs or {}).items():
            for pc, v in enumerate(vals + [0]):
                if pc == 0 or v != vals[pc - 1]:
                    self.db.execute("INSERT INTO inst_run (launch_id, function_id, metric_id, pc, value)"
                                    " VALUES (?, ?, ?, ?, ?)", (lid, fid, self.metric_id(m), 16 * pc, v))
        return lid

    def profiled(self, mangled, metric_set, values, grid=(1, 1, 1), block=(32, 1, 1)):
        lid, *_ = self.launch(mangled, grid, block, "first_of_config", 1)
        self.db.execute("INSERT INTO profile (launch_id, passes, metric_set) VALUES (?, 1, ?)", (lid, metric_set))
        for m, v in values.items():
            self.db.execute("INSERT INTO metric VALUES (?, ?, ?)", (lid, self.metric_id(m), v))
        return lid

    def close(self):
        self.db.commit()
        self.db.close()
