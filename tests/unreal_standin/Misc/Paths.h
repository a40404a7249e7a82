// Stand-in for UE 5's Misc/Paths.h (see CoreMinimal.h): the project's Content folder is
// StandIn::ContentDir, which the test sets.
#pragma once

#include <fstream>

#include "CoreMinimal.h"

namespace StandIn {
inline FString ContentDir;
}

class FPaths {
public:
    static FString ProjectContentDir() { return StandIn::ContentDir; }
    static FString ProjectDir() { return StandIn::ContentDir / FString(TEXT("..")); }
    static bool FileExists(const FString& InPath) { return std::ifstream(StandIn::Narrow(*InPath)).good(); }
    template <typename... PathTypes>
    static FString Combine(PathTypes&&... InPaths) {
        FString Out;
        ((Out = Out.IsEmpty() ? FString(InPaths) : Out / FString(InPaths)), ...);
        return Out;
    }
};
