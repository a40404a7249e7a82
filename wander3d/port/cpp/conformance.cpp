// SPDX-FileCopyrightText: 2026 The wander3d authors
// SPDX-License-Identifier: MIT
// conformance.cpp: print this port's run as CSV, exactly as `wander3d run --out ref.csv` does.
//
//   g++ -std=c++17 -O2 -ffp-contract=off *.cpp -o conformance && ./conformance SECONDS SAMPLE_RATE > out.csv
//   wander3d run scene.toml --seconds SECONDS --sample-rate SAMPLE_RATE --out ref.csv
//   cmp out.csv ref.csv
//
// It starts from start.txt (wander3d's exact start of scene.toml, read from the program's
// folder) and steps the core in wander.hpp; the rows are every agent at every sample
// (docs/ports.md of wander3d, "The conformance driver's CSV"). Not needed in a game.

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "wander.hpp"

namespace {

/// Digits d1..dn at decimal exponent e of d1, as wander3d's CSV writer (Apache Arrow,
/// double-conversion) lays them out: plain for exponents -6..9, else d.ddde+X / d.ddde-X.
void layout(std::string& out, bool negative, std::string d, int e) {
    while (d.size() > 1 && d.back() == '0') d.pop_back();
    const int n = static_cast<int>(d.size());
    if (negative) out += '-';
    if (e >= -6 && e < 10) {
        if (e >= n - 1) {
            out += d;
            out.append(static_cast<std::size_t>(e - n + 1), '0');
        } else if (e >= 0) {
            out.append(d, 0, static_cast<std::size_t>(e + 1));
            out += '.';
            out.append(d, static_cast<std::size_t>(e + 1), std::string::npos);
        } else {
            out += "0.";
            out.append(static_cast<std::size_t>(-e - 1), '0');
            out += d;
        }
        return;
    }
    out += d[0];
    if (n > 1) {
        out += '.';
        out.append(d, 1, std::string::npos);
    }
    out += e < 0 ? "e-" : "e+";
    out += std::to_string(e < 0 ? -e : e);
}

/// A float or double as wander3d's CSV writes it: the shortest digits that read back to the
/// same value, the nearest of those (std::to_chars gives exactly these), laid out as Arrow does.
template <typename T>
void shortest(std::string& out, T x) {
    if (x == 0) {
        out += std::signbit(x) ? "-0" : "0";
        return;
    }
    char text[64];
    auto end = std::to_chars(text, text + sizeof text, x, std::chars_format::scientific).ptr;
    std::string s(text, end);  // [-]d[.ddd]e(+|-)XX
    bool negative = s[0] == '-';
    if (negative) s.erase(0, 1);
    std::size_t at = s.find('e');
    std::string digits = s.substr(0, at);
    if (digits.size() > 1) digits.erase(1, 1);  // the point
    layout(out, negative, digits, std::atoi(s.c_str() + at + 1));
}

bool positive(const char* text, double& value) {
    char* end = nullptr;
    value = std::strtod(text, &end);
    return end != text && *end == '\0' && value > 0.0;
}

}  // namespace

int main(int argc, char** argv) {
    double seconds = 0.0, rate = 0.0;
    if (argc != 3 || !positive(argv[1], seconds) || !positive(argv[2], rate)) {
        std::fprintf(stderr, "usage: conformance SECONDS SAMPLE_RATE (both > 0)\n");
        return 2;
    }
    std::string program = argv[0];
    std::size_t slash = program.find_last_of("/\\");
    std::string folder = slash == std::string::npos ? std::string() : program.substr(0, slash + 1);
    std::ifstream file(folder + "start.txt", std::ios::binary);
    if (!file) {
        std::fprintf(stderr, "conformance: cannot read %sstart.txt\n", folder.c_str());
        return 1;
    }
    std::stringstream start;
    start << file.rdbuf();
    wander3d::Flock flock(wander3d::scene());
    if (!flock.loadStart(start.str())) {
        std::fprintf(stderr, "conformance: %sstart.txt is not a start of this scene\n", folder.c_str());
        return 1;
    }
    const double dt = flock.dt;
    // As `wander3d run` plans it: whole steps (Python's round: halves to even, as nearbyint in
    // the default rounding mode), a whole number of steps between samples.
    const auto steps = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::nearbyint(seconds / dt)));
    const auto every = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::nearbyint(1.0 / (rate * dt))));
    const std::int64_t samples = steps / every + 1;
    const double interval = static_cast<double>(every) * dt;
    std::vector<std::string> names;
    for (const wander3d::Group& g : flock.groups) {
        std::string quoted = "\"";
        for (char c : g.name) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
        names.push_back(quoted + "\"");
    }

    std::string out = "\"particle\",\"group\",\"frame\",\"t\",\"x\",\"y\",\"z\",\"vx\",\"vy\",\"vz\"\n";
    for (std::int64_t k = 0; k < samples; k++) {
        if (k > 0) flock.advance(static_cast<int>(every));
        std::string t;
        shortest(t, static_cast<double>(k) * interval);
        const std::string frame = std::to_string(k);
        for (int i = 0; i < flock.count; i++) {
            out += std::to_string(i);
            out += ',';
            out += names[flock.groupOf[i]];
            out += ',';
            out += frame;
            out += ',';
            out += t;
            for (const std::vector<double>* v : {&flock.position, &flock.velocity})
                for (int c = 0; c < 3; c++) {
                    out += ',';
                    shortest(out, static_cast<float>((*v)[3 * i + c]));
                }
            out += '\n';
        }
        std::fwrite(out.data(), 1, out.size(), stdout);
        out.clear();
    }
    return std::fflush(stdout) == 0 ? 0 : 1;
}
