// Stand-in for UE 5's DrawDebugHelpers.h (see CoreMinimal.h): UE 5's signatures; each call is
// counted in StandIn::DebugShapes.
#pragma once

#include "CoreMinimal.h"

namespace StandIn {
inline int DebugShapes = 0;
}

inline void DrawDebugLine(const UWorld* InWorld, FVector const& LineStart, FVector const& LineEnd, FColor const& Color,
                          bool bPersistentLines = false, float LifeTime = -1.f, uint8 DepthPriority = 0,
                          float Thickness = 0.f) {
    (void)InWorld, (void)LineStart, (void)LineEnd, (void)Color, (void)bPersistentLines, (void)LifeTime,
        (void)DepthPriority, (void)Thickness;
    StandIn::DebugShapes++;
}

inline void DrawDebugPoint(const UWorld* InWorld, FVector const& Position, float Size, FColor const& PointColor,
                           bool bPersistentLines = false, float LifeTime = -1.f, uint8 DepthPriority = 0) {
    (void)InWorld, (void)Position, (void)Size, (void)PointColor, (void)bPersistentLines, (void)LifeTime,
        (void)DepthPriority;
    StandIn::DebugShapes++;
}

inline void DrawDebugSphere(const UWorld* InWorld, FVector const& Center, float Radius, int32 Segments,
                            FColor const& Color, bool bPersistentLines = false, float LifeTime = -1.f,
                            uint8 DepthPriority = 0, float Thickness = 0.f) {
    (void)InWorld, (void)Center, (void)Radius, (void)Segments, (void)Color, (void)bPersistentLines, (void)LifeTime,
        (void)DepthPriority, (void)Thickness;
    StandIn::DebugShapes++;
}

inline void DrawDebugBox(const UWorld* InWorld, FVector const& Center, FVector const& Extent, const FQuat& Rotation,
                         FColor const& Color, bool bPersistentLines = false, float LifeTime = -1.f,
                         uint8 DepthPriority = 0, float Thickness = 0.f) {
    (void)InWorld, (void)Center, (void)Extent, (void)Rotation, (void)Color, (void)bPersistentLines, (void)LifeTime,
        (void)DepthPriority, (void)Thickness;
    StandIn::DebugShapes++;
}
