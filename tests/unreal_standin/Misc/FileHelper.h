// Stand-in for UE 5's Misc/FileHelper.h (see CoreMinimal.h): reads the file for real.
#pragma once

#include <fstream>
#include <iterator>

#include "CoreMinimal.h"

struct FFileHelper {
    enum class EHashOptions { None = 0, EnableVerify = 1 << 0, ErrorMissingHash = 1 << 1 };

    static bool LoadFileToString(FString& Result, const TCHAR* Filename, EHashOptions VerifyFlags = EHashOptions::None,
                                 uint32 ReadFlags = 0) {
        (void)VerifyFlags;
        (void)ReadFlags;
        std::ifstream In(StandIn::Narrow(Filename), std::ios::binary);
        if (!In) return false;
        const std::string Text((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
        Result = FString(StandIn::Widen(Text.c_str()));
        return true;
    }
};
