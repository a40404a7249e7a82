// SPDX-FileCopyrightText: 2026 The wander3d authors
// SPDX-License-Identifier: MIT
// WanderComponent.h: an Unreal Engine 5 component that runs a wander3d flock (wander.hpp) and
// draws it as one instanced mesh, an instance per agent. Add it to an actor and set its Agent
// Mesh; tune each group in the Details panel or from Blueprints while the game runs.
//
// The flock steps in fixed steps of the scene's dt, whatever the frame rate, and each agent is
// drawn interpolated between its last two steps; instances move without teleporting, so
// TAA/TSR get motion vectors. Coordinates: wander3d's frame is right-handed with +y up,
// Unreal's left-handed with +Z up; wander3d's (x, y, z) is Unreal's (X, Y, Z) = (x, z, y)
// times Units To Cm, relative to the owning actor. Swapping two axes turns a right-handed
// frame into a left-handed one, so nothing is mirrored: an agent turning left in wander3d
// turns left here.
//
// The class has no module API macro: Blueprints, the editor and this module's C++ reach it
// through reflection and the module itself. Only if another module's C++ calls its functions,
// add your module's macro (class YOURGAME_API UWanderComponent).

#pragma once

#include "CoreMinimal.h"
#include "Components/ActorComponent.h"

#include <memory>

#include "wander.hpp"

#include "WanderComponent.generated.h"

class UInstancedStaticMeshComponent;
class UStaticMesh;

/** How a group moves its wander target (wander3d's five methods). */
UENUM(BlueprintType)
enum class EWanderMethod : uint8
{
    Sphere UMETA(ToolTip = "Reynolds' 3D displacement on a sphere"),
    Angle UMETA(ToolTip = "The 2D tutorials' angle jitter in 3D"),
    Noise UMETA(ToolTip = "Smooth coherent noise"),
    Seek UMETA(ToolTip = "Seek random points of the box"),
    Random UMETA(ToolTip = "A fresh random force every 1/30 s (twitchy baseline)"),
};

/** How the target becomes a steering force. */
UENUM(BlueprintType)
enum class EWanderSteering : uint8
{
    Force UMETA(ToolTip = "The vector to the target is the steering force (Reynolds)"),
    Desired UMETA(ToolTip = "A desired velocity towards the target at Max Speed; steering = desired - velocity"),
};

/** One group of agents and its wander parameters, in wander3d units (one unit is the
 *  component's Units To Cm centimetres) and seconds. */
USTRUCT(BlueprintType)
struct FWanderGroup
{
    GENERATED_BODY()

    /** The group's name in the scene. */
    UPROPERTY(EditAnywhere, BlueprintReadOnly, Category = "Wander")
    FString Name;

    /** Number of agents in the group (read at Begin Play; add and remove agents at run time
     *  with Add Agent and Remove Agent). */
    UPROPERTY(EditAnywhere, BlueprintReadOnly, Category = "Wander", meta = (ClampMin = "0"))
    int32 Count = 0;

    /** sphere: Reynolds' 3D displacement on a sphere; angle: the 2D tutorials' angle jitter in
     *  3D; noise: smooth coherent noise; seek: seek random points of the box; random: a fresh
     *  random force every 1/30 s (twitchy baseline). A switch keeps each target where it is. */
    UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Wander|Method")
    EWanderMethod Method = EWanderMethod::Sphere;

    /** force: the vector to the target is the steering force (Reynolds); desired: a desired
     *  velocity towards the target at Max Speed, steering = desired - velocity. */
    UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Wander|Method")
    EWanderSteering Steering = EWanderSteering::Force;

    /** Speed limit (units/s). */
    UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Wander|Vehicle", meta = (ClampMin = "0.000001", ClampMax = "1000000"))
    double MaxSpeed = 40.0;

    /** Limit on the total steering force (mass*units/s^2); with Mass it sets how fast agents
     *  can turn. */
    UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Wander|Vehicle", meta = (ClampMin = "0.000001", ClampMax = "1000000"))
    double MaxForce = 60.0;

    /** Acceleration = force / mass: heavier agents turn more slowly. */
    UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Wander|Vehicle", meta = (ClampMin = "0.000001", ClampMax = "1000000"))
    double Mass = 1.0;

    /** Starting speed (units/s) of agents the port spawns itself (without start.txt); at most
     *  Max Speed. */
    UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Wander|Vehicle", meta = (ClampMin = "0", ClampMax = "1000000"))
    double InitialSpeed = 20.0;

    /** How far ahead of the agent the wander sphere's centre sits (units). */
    UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Wander|Target", meta = (ClampMin = "0", ClampMax = "1000000"))
    double Distance = 30.0;

    /** Radius of the wander sphere (units); with Distance it sets how hard an agent can turn. */
    UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Wander|Target", meta = (ClampMin = "0.000001", ClampMax = "1000000"))
    double Radius = 12.0;

    /** sphere: size of the random displacement added to the target (units/sqrt(s)); the
     *  target's direction decorrelates (to 1/e) in 5*(Radius/Jitter)^2 s. */
    UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Wander|Target", meta = (ClampMin = "0", ClampMax = "1000000"))
    double Jitter = 10.0;

    /** angle: how fast the target's two angles relative to the heading random-walk
     *  (rad/sqrt(s)); its yaw decorrelates (to 1/e) in 6/Rate^2 s, and its pitch reverts to
     *  level. */
    UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Wander|Target", meta = (ClampMin = "0", ClampMax = "1000000"))
    double Rate = 0.8;

    /** noise: how fast the noise driving the target changes (1/s); lower is lazier. */
    UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Wander|Target", meta = (ClampMin = "0.000001", ClampMax = "1000000"))
    double Frequency = 0.3;

    /** seek: seconds between picks of a new random point of the box to seek. */
    UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Wander|Target", meta = (ClampMin = "0.000001", ClampMax = "1000000"))
    double Interval = 4.0;

    /** Scales up/down motion: 1 turns equally in every direction, 0.2 swims like a fish, 0 stays
     *  level. */
    UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Wander|Target", meta = (ClampMin = "0", ClampMax = "1"))
    double Vertical = 1.0;
};

UCLASS(ClassGroup = (AI), meta = (BlueprintSpawnableComponent, DisplayName = "Wander"))
class UWanderComponent : public UActorComponent
{
    GENERATED_BODY()

public:
    UWanderComponent();

    /** One instance per agent; its +X is its forward and its +Z is kept up. */
    UPROPERTY(EditAnywhere, BlueprintReadOnly, Category = "Wander")
    TObjectPtr<UStaticMesh> AgentMesh;

    /** Centimetres per wander3d unit (read at Begin Play). */
    UPROPERTY(EditAnywhere, BlueprintReadOnly, Category = "Wander", meta = (ClampMin = "0.001"))
    double UnitsToCm = 10.0;

    /** The groups: wander3d's tuned scene by default. Parameters act from the next step, also
     *  while the game runs; counts are read at Begin Play. */
    UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Wander", meta = (TitleProperty = "Name"))
    TArray<FWanderGroup> Groups;

    /** The box's lowest corner, in wander3d units and axes (x, y up, z), relative to the actor. */
    UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Wander|Box")
    FVector BoxMin;

    /** The box's highest corner, in wander3d units and axes (x, y up, z), relative to the actor. */
    UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Wander|Box")
    FVector BoxMax;

    /** Width of the band inside each wall where agents start turning back (units). Agents never
     *  leave the box whatever the margin. */
    UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Wander|Box", meta = (ClampMin = "0"))
    double Margin = 15.0;

    /** Seeds every random number of the run (read at Begin Play). */
    UPROPERTY(EditAnywhere, BlueprintReadOnly, Category = "Wander|Run", meta = (ClampMin = "0", ClampMax = "4294967295"))
    int64 Seed = 0;

    /** Seconds per fixed step; only the scene's repeats wander3d's run (read at Begin Play). */
    UPROPERTY(EditAnywhere, BlueprintReadOnly, Category = "Wander|Run", meta = (ClampMin = "0.0001", ClampMax = "1"))
    double StepSeconds = 1.0 / 60.0;

    /** Optional: wander3d's exact start of the scene, a path under the project's Content folder
     *  (stage it: see the port's README). Empty, missing or not this scene's: the port spawns. */
    UPROPERTY(EditAnywhere, BlueprintReadOnly, Category = "Wander|Run")
    FString StartFile = TEXT("Wander/start.txt");

    /** Draw each agent's wander sphere and target, and the box (development builds). */
    UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Wander|Debug")
    bool bDebugDraw = false;

    /** How many agents there are. */
    UFUNCTION(BlueprintPure, Category = "Wander")
    int32 GetAgentCount() const;

    /** Agent's location in the world as drawn this frame (cm). */
    UFUNCTION(BlueprintPure, Category = "Wander")
    FVector GetAgentLocation(int32 Agent) const;

    /** Agent's velocity in the world (cm/s). */
    UFUNCTION(BlueprintPure, Category = "Wander")
    FVector GetAgentVelocity(int32 Agent) const;

    /** Agent's heading in the world (a unit vector). */
    UFUNCTION(BlueprintPure, Category = "Wander")
    FVector GetAgentHeading(int32 Agent) const;

    /** Agent's group (an index into Groups). */
    UFUNCTION(BlueprintPure, Category = "Wander")
    int32 GetAgentGroup(int32 Agent) const;

    /** Group's parameters now. */
    UFUNCTION(BlueprintPure, Category = "Wander")
    FWanderGroup GetGroup(int32 Group) const;

    /** Set a group's parameters; they act from the next step (a method switch keeps each
     *  target where it is). Name and Count are kept. */
    UFUNCTION(BlueprintCallable, Category = "Wander")
    void SetGroup(int32 Group, const FWanderGroup& Settings);

    /** Add an agent to a group at a world location (cm) with a world velocity (cm/s); it faces
     *  its velocity. Returns its index, or -1 before Begin Play or for no such group. */
    UFUNCTION(BlueprintCallable, Category = "Wander")
    int32 AddAgent(int32 Group, FVector Location, FVector Velocity);

    /** Remove an agent; the agents after it move down one index. False for no such agent. */
    UFUNCTION(BlueprintCallable, Category = "Wander")
    bool RemoveAgent(int32 Agent);

    /** The core's flock (null before Begin Play), for C++ that reads or composes with it. */
    wander3d::Flock* GetFlock() const { return Flock.get(); }

    /** wander3d's (x, y, z), +y up, right-handed, as Unreal's (X, Y, Z) = (x, z, y), +Z up,
     *  left-handed (same units). */
    static FVector ToUnreal(const wander3d::Vec3& V) { return FVector(V.x, V.z, V.y); }

    /** Unreal's (X, Y, Z) as wander3d's (x, y, z) = (X, Z, Y) (same units). */
    static wander3d::Vec3 FromUnreal(const FVector& V) { return wander3d::Vec3{V.X, V.Z, V.Y}; }

protected:
    virtual void BeginPlay() override;
    virtual void EndPlay(const EEndPlayReason::Type EndPlayReason) override;
    virtual void TickComponent(float DeltaTime, ELevelTick TickType,
                               FActorComponentTickFunction* ThisTickFunction) override;

private:
    bool IsAgent(int32 Agent) const;
    void LoadStart();
    void ApplySettings();
    FTransform AgentTransform(int32 Agent) const;
    void PlaceAgents();
    void DrawDebug() const;

    std::unique_ptr<wander3d::Flock> Flock;
    double Alpha = 0.0;  // where this frame is between the last two steps
    TArray<FTransform> InstanceTransforms;  // reused every frame: no allocation per tick

    UPROPERTY(Transient)
    TObjectPtr<UInstancedStaticMeshComponent> Instances;
};
