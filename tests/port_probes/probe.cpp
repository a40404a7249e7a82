// probe.cpp: what tests/test_port_cpp.py asks of the C++ core beyond the conformance CSV.
// Built with the checked-in wander.hpp and conformance.cpp, whose number formatting it uses
// (included below, its main renamed):
//
//   probe format F32.BIN F64.BIN   every float32, then every double, one per line
//   probe framerate                steps compared at 144, 24 fps and jittery frames
//   probe spawn                    spawn: inside the margin, unit headings, seeded
//   probe edit                     the fastest speed after maxSpeed = 5, one step on
//   probe spawned                  per agent of fiveMethods(), spawned: position, velocity,
//                                  heading, target as hex doubles
//   probe switch                   setMethod through every method: how far targets moved
//                                  per method, alignment from seek, inside, method
//   probe crlf START               "same" if START read with \r\n line ends runs alike

#define main conformance_main
#include "conformance.cpp"
#undef main

#include <cstring>
#include <iostream>
#include <iterator>
#include <map>

namespace {

std::string file(const char* path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

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
            double alpha = c.update(static_cast<double>(seed) / 2147483647.0 * 0.4);
            alphaOk = alphaOk && alpha >= 0.0 && alpha < 1.0;
        }
        for (wander3d::Flock* other : {&b, &c}) {
            if (other->stepCount != a.stepCount) continue;
            compared++;
            if (other->position != a.position)
                return "differs at step " + std::to_string(a.stepCount);
        }
    }
    double x, y, z;
    c.positionAt(0, 0.5, x, y, z);
    double mid = std::fabs(x - (c.previous[0] + c.position[0]) / 2);
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", mid);
    return "compared " + std::to_string(compared) + " alpha " + (alphaOk ? "OK" : "BAD") +
           " mid " + text;
}

/// The default scene with 30 agents of each method, vertical 0.4, default parameters.
wander3d::SceneSpec fiveMethods() {
    using wander3d::Method;
    wander3d::SceneSpec scene = wander3d::scene();
    scene.groups.clear();
    for (Method m : {Method::Sphere, Method::Angle, Method::Noise, Method::Seek, Method::Random}) {
        wander3d::GroupSpec g;
        g.name = std::to_string(static_cast<int>(m));
        g.count = 30;
        g.params.method = m;
        g.params.vertical = 0.4;
        scene.groups.push_back(g);
    }
    return scene;
}

std::string spawned() {
    wander3d::Flock flock(fiveMethods());
    std::string text;
    for (int i = 0; i < flock.count; i++) {
        for (const std::vector<double>* v : {&flock.position, &flock.velocity, &flock.heading,
                                             &flock.target})
            for (int c = 0; c < 3; c++) {
                unsigned long long bits;
                std::memcpy(&bits, &(*v)[3 * i + c], 8);
                char hex[20];
                std::snprintf(hex, sizeof hex, "%016llx ", bits);
                text += hex;
            }
        text += '\n';
    }
    return text;
}

std::string spawn() {
    wander3d::SceneSpec scene = fiveMethods();
    wander3d::Flock a(scene), b(scene);
    scene.seed = 8;
    wander3d::Flock other(scene);
    bool inside = true, unit = true, stays = true;
    for (int i = 0; i < a.count; i++) {
        for (int k = 0; k < 3; k++) {
            double x = a.position[3 * i + k];
            inside = inside && x >= a.low[k] + a.margin && x <= a.high[k] - a.margin;
        }
        const double* h = &a.heading[3 * i];
        unit = unit && std::fabs(std::sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2]) - 1.0) < 1e-12;
    }
    bool same = a.position == b.position, differs = a.position != other.position;
    a.advance(3600);
    for (int i = 0; i < a.count; i++)
        for (int k = 0; k < 3; k++)
            stays = stays && a.position[3 * i + k] >= a.low[k] && a.position[3 * i + k] <= a.high[k];
    std::string words;
    if (inside) words += "inside ";
    if (unit) words += "unit ";
    if (same) words += "same ";
    if (differs) words += "differs ";
    if (stays) words += "stays";
    while (!words.empty() && words.back() == ' ') words.pop_back();
    return words;
}

double norm(const double* v) { return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

std::string number(double x) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", x);
    return text;
}

std::string switchMethods() {
    using wander3d::Method;
    wander3d::Flock flock(small(40));
    flock.advance(120);
    const char* names[] = {"sphere", "angle", "noise", "seek", "random"};
    std::map<std::string, double> moved;
    double aligned = 1.0;
    for (Method method : {Method::Angle, Method::Noise, Method::Random, Method::Seek,
                          Method::Sphere, Method::Noise, Method::Angle}) {
        std::vector<double> before = flock.target;
        bool fromSeek = flock.groups[0].params.method == Method::Seek;
        flock.setMethod(0, method);
        double worst = 0.0;
        for (int i = 0; i < flock.count; i++) {
            const int j = 3 * i;
            double c[3], d[3], t[3], b[3];
            flock.wanderSphere(i, c[0], c[1], c[2]);
            for (int a = 0; a < 3; a++) {
                d[a] = flock.target[j + a] - before[j + a];
                t[a] = flock.target[j + a] - c[a];
                b[a] = before[j + a] - c[a];
            }
            worst = std::max(worst, norm(d));
            if (fromSeek)  // the sphere's point nearest the point sought
                aligned = std::min(aligned, (t[0] * b[0] + t[1] * b[1] + t[2] * b[2]) / (norm(t) * norm(b)));
        }
        std::string name = names[static_cast<int>(method)];
        moved[name] = moved.count(name) ? std::max(moved[name], worst) : worst;
        flock.advance(60);
    }
    bool inside = true;
    for (std::size_t j = 0; j < flock.position.size(); j++)
        inside = inside && flock.position[j] >= flock.low[j % 3] && flock.position[j] <= flock.high[j % 3];
    std::string text;
    for (const auto& entry : moved) text += entry.first + " " + number(entry.second) + " ";
    text += "aligned " + number(aligned) + " inside " + (inside ? "yes" : "no") + " method " +
            names[static_cast<int>(flock.groups[0].params.method)];
    return text;
}

std::string crlf(const std::string& start) {
    std::string windows;
    for (char c : start) windows += c == '\n' ? std::string("\r\n") : std::string(1, c);
    wander3d::Flock a(wander3d::scene()), b(wander3d::scene());
    if (!a.loadStart(start) || !b.loadStart(windows)) return "refused";
    a.advance(60);
    b.advance(60);
    return a.position == b.position && a.velocity == b.velocity ? "same" : "differs";
}

std::string edit() {
    wander3d::Flock flock(wander3d::scene());
    flock.advance(30);
    flock.groups[0].params.maxSpeed = 5.0;
    flock.advance(1);
    double fastest = 0.0;
    for (int i = 0; i < flock.count; i++) {
        const double* v = &flock.velocity[3 * i];
        fastest = std::max(fastest, std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", fastest);
    return text;
}

}  // namespace

int main(int argc, char** argv) {
    std::string out;
    if (argc == 4 && std::strcmp(argv[1], "format") == 0) {
        std::string f32 = file(argv[2]), f64 = file(argv[3]);
        for (std::size_t i = 0; i + 4 <= f32.size(); i += 4) {
            float x;
            std::memcpy(&x, f32.data() + i, 4);
            shortest(out, x);
            out += '\n';
        }
        for (std::size_t i = 0; i + 8 <= f64.size(); i += 8) {
            double x;
            std::memcpy(&x, f64.data() + i, 8);
            shortest(out, x);
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
    } else {
        return 2;
    }
    std::cout << out;
    return 0;
}
