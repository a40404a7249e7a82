// SPDX-FileCopyrightText: 2026 The wander3d authors
// SPDX-License-Identifier: MIT
// conformance.cpp: print this port's run, the hosted flock's, as CSV, exactly as
// `wander3d run --out ref.csv` does. Built and run by conformance.sh:
//
//   bash conformance.sh SECONDS SAMPLE_RATE > out.csv
//   wander3d run scene.toml --seconds SECONDS --sample-rate SAMPLE_RATE --out ref.csv
//   cmp out.csv ref.csv
//
// It starts from start.txt (wander3d's exact start of scene.toml) and steps the Flock of
// wander.hpp. compose.cpp prints the same run through the composable call. Not needed in a
// game.

#include "csv.hpp"
#include "wander.hpp"

int main(int argc, char** argv) {
    csv::Arguments run;
    if (!csv::arguments(argc, argv, run)) return 2;
    std::string start;
    if (!csv::readFile(run.start, start)) return 1;
    const wander3d::SceneSpec scene = wander3d::scene();
    wander3d::Flock flock(scene);
    if (!flock.loadStart(start)) {
        std::fprintf(stderr, "%s is not a start of this scene\n", run.start.c_str());
        return 1;
    }
    const csv::Samples samples = csv::samples(run, flock.dt);
    csv::Writer out(scene);
    for (std::int64_t k = 0; k < samples.count; k++) {
        if (k > 0) flock.advance(static_cast<int>(samples.every));
        out.sample(k, samples.interval);
        for (int i = 0; i < flock.count(); i++)
            out.row(static_cast<std::size_t>(i), flock.groupOf[i], flock.position[i], flock.velocity[i]);
        if (!out.flush()) return 1;
    }
    return 0;
}
