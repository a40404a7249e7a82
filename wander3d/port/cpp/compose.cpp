// SPDX-FileCopyrightText: 2026 The wander3d authors
// SPDX-License-Identifier: MIT
// compose.cpp: print this port's run as CSV, exactly as `wander3d run --out ref.csv` does,
// driving each agent through the composable call the way a game's own characters use it:
// the game owns position and velocity, asks the wander for a force each fixed tick, adds it
// to its own forces, integrates and keeps the agent in the box. Built and run by
// conformance.sh:
//
//   bash conformance.sh --compose SECONDS SAMPLE_RATE > out.csv
//
// The same numbers as the hosted flock (conformance.cpp): the flock is this loop. Not needed
// in a game.

#include "csv.hpp"
#include "wander.hpp"

namespace {

/// A game's character: its own position and velocity, and its wander state.
struct Character {
    int kind = 0;
    wander3d::Vec3 position;
    wander3d::Vec3 velocity;
    wander3d::WanderAgent wander;
};

/// The game's fixed tick for one character.
void tick(wander3d::Wander& wander, Character& c, double dt) {
    wander.steer(c.wander, c.position, c.velocity, dt);
    // The wander's force and the box's push, that sum first; a game adds its own forces
    // (seek, avoidance, separation...) after it.
    const wander3d::Vec3 force = c.wander.force + c.wander.containment;
    wander3d::Vec3 heading;
    if (wander3d::integrate(c.position, c.velocity, force, wander.params, dt, heading))
        wander.follow(c.wander, heading);
    wander.box.reflect(c.wander, c.position, c.velocity);
}

}  // namespace

int main(int argc, char** argv) {
    csv::Arguments run;
    if (!csv::arguments(argc, argv, run)) return 2;
    std::string text;
    if (!csv::readFile(run.start, text)) return 1;
    const wander3d::SceneSpec scene = wander3d::scene();
    // One Wander per kind of character (the scene's groups), all in the scene's box.
    std::vector<wander3d::Wander> kinds;
    for (const wander3d::GroupSpec& g : scene.groups) kinds.emplace_back(g.params, scene.seed, scene.box);
    std::vector<wander3d::StartAgent> start;
    if (!wander3d::readStart(text, scene, start)) {
        std::fprintf(stderr, "%s is not a start of this scene\n", run.start.c_str());
        return 1;
    }
    std::vector<Character> characters;
    for (const wander3d::StartAgent& s : start) characters.push_back({s.group, s.position, s.velocity, s.agent});

    const csv::Samples samples = csv::samples(run, scene.dt);
    csv::Writer out(scene);
    for (std::int64_t k = 0; k < samples.count; k++) {
        // A game's frame loop: every character takes each tick in turn.
        for (std::int64_t s = 0; k > 0 && s < samples.every; s++)
            for (Character& c : characters) tick(kinds[static_cast<std::size_t>(c.kind)], c, scene.dt);
        out.sample(k, samples.interval);
        for (std::size_t i = 0; i < characters.size(); i++)
            out.row(i, characters[i].kind, characters[i].position, characters[i].velocity);
        if (!out.flush()) return 1;
    }
    return 0;
}
