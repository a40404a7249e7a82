// component_probe.cpp: plays the wander3d Unreal component (wander3d/port/cpp/adapter) against
// the stand-in UE 5 headers of this folder, for tests/test_port_cpp.py; one "key value" line per
// question.
//
//   component_probe CONTENT_DIR   play a port of five groups for 120 frames (CONTENT_DIR holds
//                                 Wander/start.txt)
//   component_probe --axes        how wander3d's axes map to Unreal's

#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

#include "Components/InstancedStaticMeshComponent.h"
#include "DrawDebugHelpers.h"
#include "Engine/StaticMesh.h"
#include "Engine/World.h"
#include "GameFramework/Actor.h"
#include "Misc/Paths.h"
#include "WanderComponent.h"

namespace {

using wander3d::Vec3;

bool Near(const FVector& A, const FVector& B) { return (A - B).Size() <= 1e-9 * (1.0 + A.Size()); }

std::string Number(double X) {
    char Text[32];
    std::snprintf(Text, sizeof Text, "%.17g", X);
    return Text;
}

struct Played {
    AActor* Owner;
    UWanderComponent* Component;
    UInstancedStaticMeshComponent* Instances;
};

Played Play(const FString& StartFile) {
    AActor* Owner = new AActor();
    Owner->World = new UWorld();
    // Turned a quarter about Z and moved: the component works in the actor's frame.
    Owner->ActorTransform = FTransform(FQuat(0.0, 0.0, std::sqrt(0.5), std::sqrt(0.5)), FVector(100.0, -200.0, 50.0));
    UWanderComponent* Component = NewObject<UWanderComponent>(Owner);
    Component->AgentMesh = NewObject<UStaticMesh>(nullptr);
    Component->StartFile = StartFile;
    static_cast<UActorComponent*>(Component)->BeginPlay();
    UInstancedStaticMeshComponent* Instances = nullptr;
    for (UActorComponent* Added : Owner->InstanceComponents)
        if (auto* Found = dynamic_cast<UInstancedStaticMeshComponent*>(Added)) Instances = Found;
    return {Owner, Component, Instances};
}

void Tick(UWanderComponent* Component, float Seconds) {
    static_cast<UActorComponent*>(Component)->TickComponent(Seconds, LEVELTICK_All, &Component->PrimaryComponentTick);
}

int Axes() {
    const FVector X = UWanderComponent::ToUnreal(Vec3{1.0, 0.0, 0.0});
    const FVector Y = UWanderComponent::ToUnreal(Vec3{0.0, 1.0, 0.0});
    const FVector Z = UWanderComponent::ToUnreal(Vec3{0.0, 0.0, 1.0});
    auto Row = [](const FVector& V) { return Number(V.X) + " " + Number(V.Y) + " " + Number(V.Z); };
    std::cout << "x " << Row(X) << "\ny " << Row(Y) << "\nz " << Row(Z) << "\n";
    std::cout << "determinant " << Number(FVector::DotProduct(X, FVector::CrossProduct(Y, Z))) << "\n";
    // A left turn in wander3d: about +y (up) by +10 degrees, (1, 0, 0) -> (cos, 0, -sin).
    const double Turn = 10.0 * 3.141592653589793 / 180.0;
    const FVector Turned = UWanderComponent::ToUnreal(Vec3{std::cos(Turn), 0.0, -std::sin(Turn)});
    std::cout << "left-turn-yaw " << Number(std::atan2(Turned.Y, Turned.X) * 180.0 / 3.141592653589793) << "\n";
    const Vec3 Back = UWanderComponent::FromUnreal(UWanderComponent::ToUnreal(Vec3{1.5, -2.5, 3.5}));
    std::cout << "round-trip " << (Back.x == 1.5 && Back.y == -2.5 && Back.z == 3.5 ? "yes" : "no") << "\n";
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 2 && std::strcmp(argv[1], "--axes") == 0) return Axes();
    if (argc != 2) return 2;
    StandIn::ContentDir = FString(StandIn::Widen(argv[1]));

    Played Game = Play(TEXT("Wander/start.txt"));
    UWanderComponent* C = Game.Component;
    wander3d::Flock* Flock = C->GetFlock();
    std::string Text;
    {
        std::ifstream In(StandIn::Narrow(*FPaths::Combine(FPaths::ProjectContentDir(), FString(TEXT("Wander/start.txt")))));
        Text.assign(std::istreambuf_iterator<char>(In), std::istreambuf_iterator<char>());
    }
    wander3d::Flock Expected(wander3d::scene());
    const bool Loaded = Expected.loadStart(Text) && StandIn::Warnings == 0 &&
                        std::memcmp(&Expected.position[0], &Flock->position[0], sizeof(Vec3)) == 0;
    std::cout << "started-from " << (Loaded ? "start.txt" : "spawn") << "\n";
    std::cout << "instances " << C->GetAgentCount() << " " << Game.Instances->GetInstanceCount() << "\n";

    C->bDebugDraw = true;
    Tick(C, 1.0f / 60.0f);
    const int Allocations = StandIn::Allocations;
    for (int Frame = 1; Frame < 120; Frame++) Tick(C, Frame % 3 == 0 ? 1.0f / 30.0f : 1.0f / 90.0f);
    std::cout << "updates " << Game.Instances->Updates << " teleporting " << Game.Instances->Teleports << "\n";
    std::cout << "allocations-after-first-tick " << StandIn::Allocations - Allocations << "\n";

    // Each instance is where the core's agent is drawn, in component space, facing its heading.
    bool Drawn = true, Getters = true;
    const FTransform& Frame = Game.Owner->GetActorTransform();
    for (int32 I = 0; I < C->GetAgentCount(); I++) {
        const FTransform& Instance = Game.Instances->Instances[I];
        const FVector Now = UWanderComponent::ToUnreal(Flock->position[I]) * C->UnitsToCm;
        const FVector Before = UWanderComponent::ToUnreal(Flock->previous[I]) * C->UnitsToCm;
        const FVector Heading = UWanderComponent::ToUnreal(Flock->agents[I].heading);
        // Between its last two steps (interpolated), its +X along the heading, its +Z up.
        const FVector At = Instance.GetLocation();
        Drawn = Drawn && (At - Now).Size() + (At - Before).Size() <= (Now - Before).Size() + 1e-6;
        Drawn = Drawn && Near(Instance.GetRotation().GetForwardVector(), Heading) &&
                Instance.GetRotation().GetUpVector().Z >= 0.0;
        Getters = Getters && Near(C->GetAgentLocation(I), Frame.TransformPosition(Instance.GetLocation())) &&
                  Near(C->GetAgentHeading(I), Frame.TransformVectorNoScale(Heading)) &&
                  Near(C->GetAgentVelocity(I), Frame.TransformVector(UWanderComponent::ToUnreal(Flock->velocity[I]) * C->UnitsToCm)) &&
                  C->GetAgentGroup(I) == Flock->groupOf[I];
    }
    std::cout << "drawn-where-the-core-is " << (Drawn ? "yes" : "no") << "\n";
    std::cout << "blueprint-getters " << (Getters ? "yes" : "no") << "\n";

    // A Blueprint edit: group 0's speed limit to 0.5 units/s, group 1 to the noise method.
    FWanderGroup Slow = C->GetGroup(0);
    Slow.MaxSpeed = 0.5;
    Slow.Name = TEXT("renamed");  // kept: SetGroup keeps Name and Count
    C->SetGroup(0, Slow);
    FWanderGroup Noisy = C->GetGroup(1);
    Noisy.Method = EWanderMethod::Noise;
    C->SetGroup(1, Noisy);
    Tick(C, 1.0f / 60.0f);
    bool Acts = C->GetGroup(0).Name == FString(UTF8_TO_TCHAR(wander3d::scene().groups[0].name.c_str()));
    for (int32 I = 0; I < C->GetAgentCount(); I++)
        if (C->GetAgentGroup(I) == 0) Acts = Acts && C->GetAgentVelocity(I).Size() <= 0.5 * C->UnitsToCm + 1e-9;
    std::cout << "edit-acts " << (Acts ? "yes" : "no") << "\n";
    std::cout << "method-switch " << wander3d::METHOD_NAMES[static_cast<int>(Flock->groups[1].wander.params.method)] << "\n";

    const int32 Added = C->AddAgent(2, FVector(120.0, -190.0, 60.0), FVector(0.0, 100.0, 0.0));
    const int32 AfterAdd = C->GetAgentCount(), InstancesAfterAdd = Game.Instances->GetInstanceCount();
    Tick(C, 1.0f / 60.0f);
    const bool Removed = C->RemoveAgent(Added) && !C->RemoveAgent(C->GetAgentCount());
    std::cout << "add-remove " << AfterAdd << " " << InstancesAfterAdd << " "
              << (Removed ? C->GetAgentCount() : -1) << " " << Game.Instances->GetInstanceCount() << "\n";

    const int WarningsBefore = StandIn::Warnings;
    Played Spawned = Play(TEXT("Wander/missing.txt"));
    Tick(Spawned.Component, 1.0f / 60.0f);
    std::cout << "without-start spawned " << Spawned.Component->GetAgentCount() << " warnings "
              << StandIn::Warnings - WarningsBefore << "\n";
    std::cout << "debug-shapes " << StandIn::DebugShapes << "\n";
    static_cast<UActorComponent*>(C)->EndPlay(EEndPlayReason::Quit);
    std::cout << "checks-failed " << StandIn::Checks << "\n";
    return 0;
}
