// probe.cpp: what tests/test_port_cpp.py asks of the C++ core beyond the conformance CSV.
// Built with the checked-in wander.hpp and csv.hpp (the drivers' number formatting):
//
//   probe format F32.BIN F64.BIN   every float32, then every double, one per line
//   probe framerate                steps compared at 144, 24 fps and jittery frames
//   probe spawn                    spawn: inside the margin, unit headings, seeded
//   probe edit                     the fastest speed after maxSpeed = 5, one step on, for the
//                                  flock and for agents composed by hand
//   probe spawned                  per agent of fiveMethods(), spawned: position, velocity,
//                                  heading, target as hex doubles
//   probe switch                   setMethod through every method: how far targets moved
//                                  per method, alignment from seek, inside, method
//   probe crlf START               "same" if START read with \r\n line ends runs alike
//   probe comings                  agents added and removed at run time (see comings())
//   probe placed                   agents the game placed: heading, seek point, stream
//   probe edits EDITS START STEPS  the scene's run from START with the edits of file EDITS,
//                                  hosted and composed: their end states
//                                  (port_support.check_edits_repeat_the_engines)

#include <algorithm>
#include <cstring>
#include <iostream>
#include <iterator>
#include <map>
#include <sstream>

#include "csv.hpp"
#include "wander.hpp"

namespace {

using wander3d::Vec3;

std::string file(const char* path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string number(double x) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", x);
    return text;
}

double norm(const Vec3& v) { return std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z); }

bool same(const Vec3& a, const Vec3& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

wander3d::SceneSpec small(int count) {
    wander3d::SceneSpec scene = wander3d::scene();
    scene.groups[0].count = count;
    return scene;
}

std::string frameRate() {
    wander3d::Flock a(small(20)), b(small(20)), c(small(20));
    int compared = 0;
    bool alphaOk = true;
    long long seed = 1;
    while (a.stepCount < 1200) {
        a.update(1.0 / 144.0);
        if (b.stepCount < a.stepCount) b.update(1.0 / 24.0);
        if (c.stepCount < a.stepCount) {
            seed = seed * 16807 % 2147483647;
            const double alpha = c.update(static_cast<double>(seed) / 2147483647.0 * 0.4);
            alphaOk = alphaOk && alpha >= 0.0 && alpha < 1.0;
        }
        for (wander3d::Flock* other : {&b, &c}) {
            if (other->stepCount != a.stepCount) continue;
            compared++;
            for (int i = 0; i < a.count(); i++)
                if (!same(other->position[i], a.position[i])) return "differs at step " + std::to_string(a.stepCount);
        }
    }
    const Vec3 drawn = c.positionAt(0, 0.5);
    const double mid = std::fabs(drawn.x - (c.previous[0].x + c.position[0].x) / 2);
    return "compared " + std::to_string(compared) + " alpha " + (alphaOk ? "OK" : "BAD") + " mid " + number(mid);
}

/// The default scene with 30 agents of each method, vertical 0.4, default parameters.
wander3d::SceneSpec fiveMethods() {
    using wander3d::Method;
    wander3d::SceneSpec scene = wander3d::scene();
    scene.groups.clear();
    for (Method m : {Method::Sphere, Method::Angle, Method::Noise, Method::Seek, Method::Random}) {
        wander3d::GroupSpec g;
        g.name = wander3d::METHOD_NAMES[static_cast<int>(m)];
        g.count = 30;
        g.params.method = m;
        g.params.vertical = 0.4;
        scene.groups.push_back(g);
    }
    return scene;
}

std::string hex(const Vec3& v) {
    std::string text;
    for (double x : {v.x, v.y, v.z}) {
        unsigned long long bits;
        std::memcpy(&bits, &x, 8);
        char digits[20];
        std::snprintf(digits, sizeof digits, "%016llx ", bits);
        text += digits;
    }
    return text;
}

std::string spawned() {
    wander3d::Flock flock(fiveMethods());
    std::string text;
    for (int i = 0; i < flock.count(); i++)
        text += hex(flock.position[i]) + hex(flock.velocity[i]) + hex(flock.agents[i].heading) + hex(flock.target(i)) + "\n";
    return text;
}

bool inside(const wander3d::Flock& flock, double margin) {
    for (const Vec3& p : flock.position) {
        const wander3d::WanderBox& b = flock.box;
        if (p.x < b.min.x + margin || p.x > b.max.x - margin || p.y < b.min.y + margin ||
            p.y > b.max.y - margin || p.z < b.min.z + margin || p.z > b.max.z - margin)
            return false;
    }
    return true;
}

std::string spawn() {
    wander3d::SceneSpec scene = fiveMethods();
    wander3d::Flock a(scene), b(scene);
    scene.seed = 8;
    wander3d::Flock other(scene);
    bool unit = true, same_ = true, differs = false;
    for (int i = 0; i < a.count(); i++) {
        unit = unit && std::fabs(norm(a.agents[i].heading) - 1.0) < 1e-12;
        same_ = same_ && same(a.position[i], b.position[i]);
        differs = differs || !same(a.position[i], other.position[i]);
    }
    const bool inMargin = inside(a, a.box.margin);
    a.advance(3600);
    std::string words;
    if (inMargin) words += "inside ";
    if (unit) words += "unit ";
    if (same_) words += "same ";
    if (differs) words += "differs ";
    if (inside(a, 0.0)) words += "stays";
    while (!words.empty() && words.back() == ' ') words.pop_back();
    return words;
}

std::string switchMethods() {
    using wander3d::Method;
    wander3d::Flock flock(small(40));
    flock.advance(120);
    std::map<std::string, double> moved;
    double aligned = 1.0;
    for (Method method : {Method::Angle, Method::Noise, Method::Random, Method::Seek, Method::Sphere, Method::Noise,
                          Method::Angle}) {
        std::vector<Vec3> before;
        for (int i = 0; i < flock.count(); i++) before.push_back(flock.target(i));
        const bool fromSeek = flock.groups[0].wander.params.method == Method::Seek;
        flock.setMethod(0, method);
        double worst = 0.0;
        for (int i = 0; i < flock.count(); i++) {
            Vec3 c;
            flock.wanderSphere(i, c);
            const Vec3 t = flock.target(i) - c, b = before[static_cast<std::size_t>(i)] - c;
            worst = std::max(worst, norm(flock.target(i) - before[static_cast<std::size_t>(i)]));
            if (fromSeek)  // the sphere's point nearest the point sought
                aligned = std::min(aligned, (t.x * b.x + t.y * b.y + t.z * b.z) / (norm(t) * norm(b)));
        }
        const std::string name = wander3d::METHOD_NAMES[static_cast<int>(method)];
        moved[name] = moved.count(name) ? std::max(moved[name], worst) : worst;
        flock.advance(60);
    }
    std::string text;
    for (const auto& entry : moved) text += entry.first + " " + number(entry.second) + " ";
    text += "aligned " + number(aligned) + " inside " + (inside(flock, 0.0) ? "yes" : "no") + " method " +
            wander3d::METHOD_NAMES[static_cast<int>(flock.groups[0].wander.params.method)];
    return text;
}

std::string crlf(const std::string& start) {
    std::string windows;
    for (char c : start) windows += c == '\n' ? std::string("\r\n") : std::string(1, c);
    wander3d::Flock a(wander3d::scene()), b(wander3d::scene());
    if (!a.loadStart(start) || !b.loadStart(windows)) return "refused";
    a.advance(60);
    b.advance(60);
    for (int i = 0; i < a.count(); i++)
        if (!same(a.position[i], b.position[i]) || !same(a.velocity[i], b.velocity[i])) return "differs";
    return "same";
}

double fastest(const std::vector<Vec3>& velocities) {
    double top = 0.0;
    for (const Vec3& v : velocities) top = std::max(top, norm(v));
    return top;
}

std::string edit() {
    wander3d::Flock flock(wander3d::scene());
    flock.advance(30);
    flock.groups[0].wander.params.maxSpeed = 5.0;
    flock.advance(1);
    // The same through the composable call: an edit between two ticks acts on the second.
    wander3d::Wander wander(wander3d::scene().groups[0].params, 7, wander3d::scene().box);
    std::vector<Vec3> at(50), moving(50);
    std::vector<wander3d::WanderAgent> agents;
    for (std::size_t i = 0; i < at.size(); i++) agents.push_back(wander.spawn(static_cast<std::int64_t>(i), wander.box, at[i], moving[i]));
    for (int tick = 0; tick < 31; tick++) {
        if (tick == 30) wander.params.maxSpeed = 5.0;
        for (std::size_t i = 0; i < at.size(); i++) {
            wander.steer(agents[i], at[i], moving[i], 1.0 / 60.0);
            Vec3 heading;
            if (wander3d::integrate(at[i], moving[i], agents[i].force + agents[i].containment, wander.params, 1.0 / 60.0, heading))
                wander.follow(agents[i], heading);
            wander.box.reflect(agents[i], at[i], moving[i]);
        }
    }
    return number(fastest(flock.velocity)) + " " + number(fastest(moving));
}

/// Agents come and go at run time, each with its own id: from a flock of 40, agent 7 is
/// removed after 100 steps and two are added (one placed, one spawned); 200 steps on, the
/// others' states equal those of a flock that kept all 40. A flock whose agent 7 is removed
/// at the start and re-added by the same id (Wander::spawn) runs it as the first did.
std::string comings() {
    wander3d::Flock all(small(40)), some(small(40));
    all.advance(100);
    some.advance(100);
    some.remove(7);
    const int placed = some.add(0, Vec3{1.0, 2.0, 3.0}, Vec3{0.0, 0.0, 0.0});
    const int spawnedAt = some.addSpawned(0);
    all.advance(200);
    some.advance(200);
    bool others = some.count() == 41;
    for (int k = 0; k < 39 && others; k++) {
        const int j = k < 7 ? k : k + 1;  // the same agent's index in `all`
        others = same(some.position[k], all.position[j]) && same(some.velocity[k], all.velocity[j]) &&
                 some.agents[k].id == all.agents[j].id;
    }
    const bool newIds = some.agents[placed].id == 40 && some.agents[spawnedAt].id == 41;
    const bool movedOff = norm(some.position[placed] - Vec3{1.0, 2.0, 3.0}) > 1.0 && inside(some, 0.0);

    // Re-adding by id repeats the stream: agent 7 dropped and spawned again by its id.
    wander3d::Flock again(small(40));
    wander3d::Wander& wander = again.groups[0].wander;
    Vec3 at, moving;
    wander3d::WanderAgent seven = wander.spawn(7, again.box, at, moving);
    wander3d::Flock reference(small(40));
    const bool sameStart = same(at, reference.position[7]) && same(moving, reference.velocity[7]);
    reference.advance(150);
    for (int tick = 0; tick < 150; tick++) {
        wander.steer(seven, at, moving, again.dt);
        Vec3 heading;
        if (wander3d::integrate(at, moving, seven.force + seven.containment, wander.params, again.dt, heading))
            wander.follow(seven, heading);
        wander.box.reflect(seven, at, moving);
    }
    const bool repeats = sameStart && same(at, reference.position[7]) && same(moving, reference.velocity[7]);
    return std::string(others ? "others-unchanged " : "others-changed ") + (newIds ? "new-ids " : "ids? ") +
           (movedOff ? "placed-moves " : "placed-stuck ") + (repeats ? "id-repeats" : "id-differs");
}

/// Agents the game placed (Wander::agent): they face their velocity (+x when it is zero),
/// seek a point of the box (unbounded: their position), and the same id gives the same
/// draws whatever the position; containment is -0 without a box.
std::string placed() {
    wander3d::WanderParams params;
    params.method = wander3d::Method::Seek;
    const wander3d::Wander boxed(params, 3, wander3d::WanderBox{}), open(params, 3);
    const wander3d::WanderAgent a = boxed.agent(5, Vec3{1.0, 2.0, 3.0}, Vec3{0.0, 3.0, 4.0});
    const wander3d::WanderAgent still = boxed.agent(5, Vec3{-9.0, 0.0, 0.0}, Vec3{0.0, 0.0, 0.0});
    const wander3d::WanderAgent free = open.agent(5, Vec3{1.0, 2.0, 3.0}, Vec3{0.0, 3.0, 4.0});
    const bool faces = same(a.heading, Vec3{0.0, 0.6, 0.8}) && same(still.heading, Vec3{1.0, 0.0, 0.0});
    const bool sought = same(a.seekPoint, still.seekPoint) && same(free.seekPoint, Vec3{1.0, 2.0, 3.0}) &&
                        a.seekTimer == still.seekTimer;
    wander3d::Wander wanderer(wander3d::WanderParams{}, 3);
    wander3d::WanderAgent w = wanderer.agent(1, Vec3{0.0, 0.0, 0.0}, Vec3{5.0, 0.0, 0.0});
    wanderer.steer(w, Vec3{0.0, 0.0, 0.0}, Vec3{5.0, 0.0, 0.0}, 1.0 / 60.0);
    const bool unpushed = std::signbit(w.containment.x) && w.containment.x == 0.0 && std::signbit(w.containment.y) &&
                          std::signbit(w.containment.z) && w.step == 1;
    return std::string(faces ? "faces " : "faces? ") + (sought ? "seeks " : "seeks? ") + (unpushed ? "unpushed" : "pushed?");
}

/// Sets scene key `key` (wander3d's spelling) of params to value (a number, or a steering
/// word: force, desired); false for a key it does not know.
bool set(wander3d::WanderParams& p, const std::string& key, const std::string& value) {
    const std::map<std::string, double wander3d::WanderParams::*> numbers = {
        {"max_speed", &wander3d::WanderParams::maxSpeed}, {"max_force", &wander3d::WanderParams::maxForce},
        {"mass", &wander3d::WanderParams::mass},           {"distance", &wander3d::WanderParams::distance},
        {"radius", &wander3d::WanderParams::radius},       {"jitter", &wander3d::WanderParams::jitter},
        {"rate", &wander3d::WanderParams::rate},           {"frequency", &wander3d::WanderParams::frequency},
        {"interval", &wander3d::WanderParams::interval},   {"vertical", &wander3d::WanderParams::vertical},
    };
    if (key == "steering" && (value == "force" || value == "desired")) {
        p.steering = value == "desired" ? wander3d::Steering::Desired : wander3d::Steering::Force;
        return true;
    }
    const auto field = numbers.find(key);
    if (field == numbers.end()) return false;
    p.*(field->second) = std::strtod(value.c_str(), nullptr);
    return true;
}

/// The scene's run from start for `steps` steps with the edits of file `path` ("STEP GROUP
/// KEY VALUE" lines in step order: before step STEP, group GROUP's KEY, in the scene file's
/// words, becomes VALUE), in the hosted flock and in a game's loop of the composable call:
/// "hosted", a line per agent (position, velocity as hex doubles), "composed", the same.
std::string edits(const std::string& path, const std::string& start, int steps) {
    const wander3d::SceneSpec scene = wander3d::scene();
    wander3d::Flock flock(scene);
    if (!flock.loadStart(start)) return "not a start of the scene\n";
    std::vector<wander3d::Wander> kinds;
    for (const wander3d::GroupSpec& g : scene.groups) kinds.emplace_back(g.params, scene.seed, scene.box);
    std::vector<wander3d::StartAgent> characters;
    wander3d::readStart(start, scene, characters);
    std::istringstream lines(file(path.c_str()));
    int at = -1;
    std::size_t group = 0;
    std::string key, value;
    bool pending = static_cast<bool>(lines >> at >> group >> key >> value);
    for (int step = 0; step <= steps; step++) {
        for (; pending && at == step; pending = static_cast<bool>(lines >> at >> group >> key >> value)) {
            if (!set(flock.groups[group].wander.params, key, value) || !set(kinds[group].params, key, value))
                return "no parameter " + key + "\n";
        }
        if (step == steps) break;
        flock.advance(1);
        for (wander3d::StartAgent& c : characters) {
            wander3d::Wander& wander = kinds[static_cast<std::size_t>(c.group)];
            wander.steer(c.agent, c.position, c.velocity, scene.dt);
            Vec3 heading;
            if (wander3d::integrate(c.position, c.velocity, c.agent.force + c.agent.containment, wander.params,
                                    scene.dt, heading))
                wander.follow(c.agent, heading);
            wander.box.reflect(c.agent, c.position, c.velocity);
        }
    }
    std::string text = "hosted\n";
    for (int i = 0; i < flock.count(); i++)
        text += hex(flock.position[static_cast<std::size_t>(i)]) + hex(flock.velocity[static_cast<std::size_t>(i)]) + "\n";
    text += "composed\n";
    for (const wander3d::StartAgent& c : characters) text += hex(c.position) + hex(c.velocity) + "\n";
    return text;
}

}  // namespace

int main(int argc, char** argv) {
    std::string out;
    if (argc == 4 && std::strcmp(argv[1], "format") == 0) {
        const std::string f32 = file(argv[2]), f64 = file(argv[3]);
        for (std::size_t i = 0; i + 4 <= f32.size(); i += 4) {
            float x;
            std::memcpy(&x, f32.data() + i, 4);
            csv::shortest(out, x);
            out += '\n';
        }
        for (std::size_t i = 0; i + 8 <= f64.size(); i += 8) {
            double x;
            std::memcpy(&x, f64.data() + i, 8);
            csv::shortest(out, x);
            out += '\n';
        }
    } else if (argc == 2 && std::strcmp(argv[1], "framerate") == 0) {
        out = frameRate();
    } else if (argc == 2 && std::strcmp(argv[1], "spawn") == 0) {
        out = spawn();
    } else if (argc == 2 && std::strcmp(argv[1], "spawned") == 0) {
        out = spawned();
    } else if (argc == 2 && std::strcmp(argv[1], "switch") == 0) {
        out = switchMethods();
    } else if (argc == 2 && std::strcmp(argv[1], "edit") == 0) {
        out = edit();
    } else if (argc == 3 && std::strcmp(argv[1], "crlf") == 0) {
        out = crlf(file(argv[2]));
    } else if (argc == 2 && std::strcmp(argv[1], "comings") == 0) {
        out = comings();
    } else if (argc == 2 && std::strcmp(argv[1], "placed") == 0) {
        out = placed();
    } else if (argc == 5 && std::strcmp(argv[1], "edits") == 0) {
        out = edits(argv[2], file(argv[3]), std::atoi(argv[4]));
    } else {
        return 2;
    }
    std::cout << out;
    return 0;
}
