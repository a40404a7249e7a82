// SPDX-FileCopyrightText: 2026 The wander3d authors
// SPDX-License-Identifier: MIT
// WanderComponent.h: an Unreal Engine 5 component that runs a wander3d flock (wander.hpp) and
// draws one instanced mesh per agent. Add it to an actor and set its Agent Mesh.
//
// The simulation steps in fixed steps of the scene's dt, whatever the frame rate (the core's
// update), and each agent is drawn interpolated between its last two steps. wander3d's
// (x, y, z), +y up, becomes Unreal's (X, Y, Z) = (x, z, y) * UnitsToCm, +Z up, relative to
// the owning actor. Replace MYGAME_API by your module's API macro.

#pragma once

#include <memory>

#include "Components/ActorComponent.h"
#include "CoreMinimal.h"
#include "wander.hpp"

#include "WanderComponent.generated.h"

class UInstancedStaticMeshComponent;
class UStaticMesh;

UCLASS(ClassGroup = (AI), meta = (BlueprintSpawnableComponent, DisplayName = "Wander"))
class MYGAME_API UWanderComponent : public UActorComponent
{
    GENERATED_BODY()

public:
    UWanderComponent();

    /** One instance per agent; its +X is its forward. */
    UPROPERTY(EditAnywhere, Category = "Wander")
    TObjectPtr<UStaticMesh> AgentMesh;

    /** Centimetres per wander3d unit. */
    UPROPERTY(EditAnywhere, Category = "Wander", meta = (ClampMin = "0.001"))
    float UnitsToCm = 10.f;

    /** Optional: start.txt, wander3d's exact start of the scene (else the port spawns). */
    UPROPERTY(EditAnywhere, Category = "Wander", meta = (FilePathFilter = "txt"))
    FFilePath StartFile;

    /** Draw each agent's wander sphere and target (development builds). */
    UPROPERTY(EditAnywhere, Category = "Wander")
    bool bDebugDraw = false;

    /** The flock: its groups[g].params may be edited at any time (null before BeginPlay). */
    wander3d::Flock* GetFlock() const { return Flock.get(); }

protected:
    virtual void BeginPlay() override;
    virtual void TickComponent(float DeltaTime, ELevelTick TickType,
                               FActorComponentTickFunction* ThisTickFunction) override;

private:
    FVector ToUnreal(double X, double Y, double Z) const;
    void PlaceAgents(double Alpha);
    void DrawDebug() const;

    std::unique_ptr<wander3d::Flock> Flock;

    UPROPERTY(Transient)
    TObjectPtr<UInstancedStaticMeshComponent> Instances;
};
