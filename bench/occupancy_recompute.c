/* SPDX-License-Identifier: MIT */
/*
 * occupancy_recompute REPORT...: recomputes the theoretical occupancy
 * columns of every config row (theoretical_occupancy_pct, blocks_per_sm,
 * occupancy_limiter, waves) with this build's occupancy calculator
 * (collector/occupancy.c, sm_90 limits, the device's SM count), in place.
 *
 * For re-scoring reports recorded on the H200 after a change to the
 * calculator, without a GPU: the collector computes these columns when it
 * writes a config row, so a recorded report keeps the calculator of the
 * build that recorded it. Writes a meta row 'occupancy_recomputed' saying
 * so, so a re-scored copy never passes for a recording. Use it on copies.
 * Exit 0, or 1 with a message on the first report it cannot update.
 */
#include "collector/occupancy.h"

#include <sqlite3.h>
#include <stdio.h>

static int
recompute(const char *path)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        fprintf(stderr, "occupancy_recompute: cannot open '%s': %s\n", path, sqlite3_errmsg(db));
        sqlite3_close(db);
        return -1;
    }
    struct occupancy_device d;
    occupancy_device_sm90(&d);
    sqlite3_stmt *sel = NULL, *upd = NULL;
    int rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(
            db,
            "SELECT c.id, c.threads_per_block, c.registers_per_thread, c.static_smem_bytes, "
            "c.dynamic_smem_bytes, COALESCE(c.carveout_bytes, 0), "
            "COALESCE(c.cluster_x * c.cluster_y * c.cluster_z, 1), c.blocks, "
            "COALESCE((SELECT sm_count FROM device WHERE id = c.device_id), 132) FROM config c",
            -1, &sel, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db,
                                "UPDATE config SET theoretical_occupancy_pct = ?, blocks_per_sm = "
                                "?, occupancy_limiter = ?, waves = ? WHERE id = ?",
                                -1, &upd, NULL);
    int n = 0;
    while (rc == SQLITE_OK && sqlite3_step(sel) == SQLITE_ROW) {
        struct occupancy_launch l = {
            .threads_per_block = sqlite3_column_int(sel, 1),
            .regs_per_thread = sqlite3_column_int(sel, 2),
            .static_smem_bytes = sqlite3_column_int(sel, 3),
            .dynamic_smem_bytes = sqlite3_column_int(sel, 4),
            .carveout_bytes = sqlite3_column_int(sel, 5),
            .cluster_size = sqlite3_column_int(sel, 6),
        };
        struct occupancy_result r = {0};
        int ok = occupancy_compute(&d, &l, &r) == 0;
        long blocks = (long)sqlite3_column_int64(sel, 7);
        int sms = sqlite3_column_int(sel, 8);
        sqlite3_bind_double(upd, 1, ok ? r.occupancy_pct : 0.0);
        sqlite3_bind_int(upd, 2, r.blocks_per_sm);
        sqlite3_bind_text(upd, 3, r.limiter, -1, SQLITE_STATIC);
        double waves = occupancy_waves(blocks, r.blocks_per_sm, sms);
        if (waves >= 0)
            sqlite3_bind_double(upd, 4, waves);
        else
            sqlite3_bind_null(upd, 4);
        sqlite3_bind_int64(upd, 5, sqlite3_column_int64(sel, 0));
        rc = sqlite3_step(upd) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
        sqlite3_reset(upd);
        n++;
    }
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db,
                          "INSERT OR REPLACE INTO meta(key, value) VALUES ('occupancy_recomputed', "
                          "'config occupancy columns recomputed offline by "
                          "bench/occupancy_recompute (sm_90 limits)')",
                          NULL, NULL, NULL);
    sqlite3_finalize(sel);
    sqlite3_finalize(upd);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        fprintf(stderr, "occupancy_recompute: '%s': %s\n", path, sqlite3_errmsg(db));
    else
        printf("%s: %d configurations\n", path, n);
    sqlite3_close(db);
    return rc == SQLITE_OK ? 0 : -1;
}

int
main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: occupancy_recompute REPORT...\n");
        return 2;
    }
    for (int i = 1; i < argc; i++)
        if (recompute(argv[i]))
            return 1;
    return 0;
}
