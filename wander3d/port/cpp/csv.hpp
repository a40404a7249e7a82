// SPDX-FileCopyrightText: 2026 The wander3d authors
// SPDX-License-Identifier: MIT
// csv.hpp: what the conformance drivers (conformance.cpp, compose.cpp) share: their arguments,
// the samples `wander3d run` takes, and its CSV, number for number (docs/ports.md of wander3d,
// "The conformance driver's CSV"). Not needed in a game.

#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "wander.hpp"

namespace csv {

/// Digits d1..dn at decimal exponent e of d1, as wander3d's CSV writer (Apache Arrow,
/// double-conversion) lays them out: plain for exponents -6..9, else d.ddde+X / d.ddde-X.
inline void layout(std::string& out, bool negative, std::string d, int e) {
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
    const bool negative = s[0] == '-';
    if (negative) s.erase(0, 1);
    const std::size_t at = s.find('e');
    std::string digits = s.substr(0, at);
    if (digits.size() > 1) digits.erase(1, 1);  // the point
    layout(out, negative, digits, std::atoi(s.c_str() + at + 1));
}

/// The run a driver prints: SECONDS and SAMPLE_RATE (numbers > 0) and the start file.
struct Arguments {
    double seconds = 0.0;
    double rate = 0.0;
    std::string start = "start.txt";
};

inline bool positive(const char* text, double& value) {
    char* end = nullptr;
    value = std::strtod(text, &end);
    return end != text && *end == '\0' && value > 0.0;
}

/// argv's arguments, or a usage line on stderr and false.
inline bool arguments(int argc, char** argv, Arguments& out) {
    if ((argc == 3 || argc == 4) && positive(argv[1], out.seconds) && positive(argv[2], out.rate)) {
        if (argc == 4) out.start = argv[3];
        return true;
    }
    std::fprintf(stderr, "usage: %s SECONDS SAMPLE_RATE [START] (numbers > 0; START: start.txt)\n", argv[0]);
    return false;
}

/// The text of the start file, or a message on stderr and false.
inline bool readFile(const std::string& path, std::string& text) {
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        std::fprintf(stderr, "cannot read %s\n", path.c_str());
        return false;
    }
    std::stringstream content;
    content << file.rdbuf();
    text = content.str();
    return true;
}

/// The samples `wander3d run` takes: `samples` of them, `every` steps apart, `interval` s.
struct Samples {
    std::int64_t count = 0;
    std::int64_t every = 0;
    double interval = 0.0;
};

/// As `wander3d run` plans them: whole steps (Python's round: halves to even, as nearbyint
/// in the default rounding mode), a whole number of steps between samples.
inline Samples samples(const Arguments& run, double dt) {
    const auto steps = static_cast<std::int64_t>(std::nearbyint(run.seconds / dt));
    const auto every = static_cast<std::int64_t>(std::nearbyint(1.0 / (run.rate * dt)));
    Samples s;
    s.every = every > 1 ? every : 1;
    s.count = (steps > 1 ? steps : 1) / s.every + 1;
    s.interval = static_cast<double>(s.every) * dt;
    return s;
}

/// Writes the CSV: the header, then a sample's rows at a time, straight to stdout.
class Writer {
public:
    /// The CSV of a run of scene (its groups named as the CSV quotes them).
    explicit Writer(const wander3d::SceneSpec& scene) {
        for (const wander3d::GroupSpec& g : scene.groups) {
            std::string quoted = "\"";
            for (char c : g.name) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
            names_.push_back(quoted + "\"");
        }
        out_ = "\"particle\",\"group\",\"frame\",\"t\",\"x\",\"y\",\"z\",\"vx\",\"vy\",\"vz\"\n";
    }

    /// Sample k's time, once before its rows.
    void sample(std::int64_t k, double interval) {
        frame_ = std::to_string(k);
        time_.clear();
        shortest(time_, static_cast<double>(k) * interval);
    }

    /// One agent's row of the current sample.
    void row(std::size_t particle, int group, const wander3d::Vec3& position, const wander3d::Vec3& velocity) {
        out_ += std::to_string(particle);
        out_ += ',';
        out_ += names_[static_cast<std::size_t>(group)];
        out_ += ',';
        out_ += frame_;
        out_ += ',';
        out_ += time_;
        for (const wander3d::Vec3* v : {&position, &velocity})
            for (double x : {v->x, v->y, v->z}) {
                out_ += ',';
                shortest(out_, static_cast<float>(x));
            }
        out_ += '\n';
    }

    /// Write what is buffered; false if stdout failed.
    bool flush() {
        const bool written = std::fwrite(out_.data(), 1, out_.size(), stdout) == out_.size();
        out_.clear();
        return written && std::fflush(stdout) == 0;
    }

private:
    std::vector<std::string> names_;
    std::string out_, frame_, time_;
};

}  // namespace csv
