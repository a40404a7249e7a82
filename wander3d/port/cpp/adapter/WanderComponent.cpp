// SPDX-FileCopyrightText: 2026 The wander3d authors
// SPDX-License-Identifier: MIT
// WanderComponent.cpp: see WanderComponent.h.

#include "WanderComponent.h"

#include "Components/InstancedStaticMeshComponent.h"
#include "DrawDebugHelpers.h"
#include "Engine/StaticMesh.h"
#include "Engine/World.h"
#include "GameFramework/Actor.h"
#include "Misc/FileHelper.h"
#include "Misc/Paths.h"

DEFINE_LOG_CATEGORY_STATIC(LogWander, Log, All);

// The editor's enums are the core's, value for value.
static_assert(static_cast<int>(EWanderMethod::Sphere) == static_cast<int>(wander3d::Method::Sphere) &&
                  static_cast<int>(EWanderMethod::Angle) == static_cast<int>(wander3d::Method::Angle) &&
                  static_cast<int>(EWanderMethod::Noise) == static_cast<int>(wander3d::Method::Noise) &&
                  static_cast<int>(EWanderMethod::Seek) == static_cast<int>(wander3d::Method::Seek) &&
                  static_cast<int>(EWanderMethod::Random) == static_cast<int>(wander3d::Method::Random),
              "EWanderMethod follows wander3d::Method");
static_assert(static_cast<int>(EWanderSteering::Force) == static_cast<int>(wander3d::Steering::Force) &&
                  static_cast<int>(EWanderSteering::Desired) == static_cast<int>(wander3d::Steering::Desired),
              "EWanderSteering follows wander3d::Steering");

namespace
{
wander3d::WanderParams ToCore(const FWanderGroup& Group)
{
    wander3d::WanderParams P;
    P.method = static_cast<wander3d::Method>(Group.Method);
    P.steering = static_cast<wander3d::Steering>(Group.Steering);
    P.maxSpeed = Group.MaxSpeed;
    P.maxForce = Group.MaxForce;
    P.mass = Group.Mass;
    P.initialSpeed = Group.InitialSpeed;
    P.distance = Group.Distance;
    P.radius = Group.Radius;
    P.jitter = Group.Jitter;
    P.rate = Group.Rate;
    P.frequency = Group.Frequency;
    P.interval = Group.Interval;
    P.vertical = Group.Vertical;
    return P;
}

FWanderGroup FromCore(const wander3d::GroupSpec& Spec)
{
    const wander3d::WanderParams& P = Spec.params;
    FWanderGroup Group;
    Group.Name = FString(UTF8_TO_TCHAR(Spec.name.c_str()));
    Group.Count = Spec.count;
    Group.Method = static_cast<EWanderMethod>(P.method);
    Group.Steering = static_cast<EWanderSteering>(P.steering);
    Group.MaxSpeed = P.maxSpeed;
    Group.MaxForce = P.maxForce;
    Group.Mass = P.mass;
    Group.InitialSpeed = P.initialSpeed;
    Group.Distance = P.distance;
    Group.Radius = P.radius;
    Group.Jitter = P.jitter;
    Group.Rate = P.rate;
    Group.Frequency = P.frequency;
    Group.Interval = P.interval;
    Group.Vertical = P.vertical;
    return Group;
}

// The box's corners are kept in wander3d's axes: FVector only holds them.
wander3d::Vec3 Corner(const FVector& V) { return wander3d::Vec3{V.X, V.Y, V.Z}; }
}  // namespace

UWanderComponent::UWanderComponent()
{
    PrimaryComponentTick.bCanEverTick = true;
    // The defaults are the tuned scene's (wander.hpp's scene block).
    const wander3d::SceneSpec Scene = wander3d::scene();
    for (const wander3d::GroupSpec& Spec : Scene.groups)
    {
        Groups.Add(FromCore(Spec));
    }
    BoxMin = FVector(Scene.box.min.x, Scene.box.min.y, Scene.box.min.z);
    BoxMax = FVector(Scene.box.max.x, Scene.box.max.y, Scene.box.max.z);
    Margin = Scene.box.margin;
    Seed = Scene.seed;
    StepSeconds = Scene.dt;
}

void UWanderComponent::BeginPlay()
{
    Super::BeginPlay();
    wander3d::SceneSpec Scene;
    Scene.seed = static_cast<std::uint32_t>(Seed);
    Scene.dt = StepSeconds;
    Scene.box = wander3d::WanderBox{Corner(BoxMin), Corner(BoxMax), Margin};
    for (const FWanderGroup& Group : Groups)
    {
        Scene.groups.push_back(wander3d::GroupSpec{TCHAR_TO_UTF8(*Group.Name), Group.Count, ToCore(Group)});
    }
    Flock = std::make_unique<wander3d::Flock>(Scene);
    LoadStart();

    AActor* Owner = GetOwner();
    Instances = NewObject<UInstancedStaticMeshComponent>(Owner, TEXT("WanderAgents"));
    Instances->SetStaticMesh(AgentMesh);
    Instances->SetupAttachment(Owner->GetRootComponent());
    Instances->RegisterComponent();
    Owner->AddInstanceComponent(Instances);  // listed in the actor's Details panel
    PlaceAgents();
    Instances->AddInstances(InstanceTransforms, false);
}

void UWanderComponent::LoadStart()
{
    if (StartFile.IsEmpty())
    {
        return;
    }
    const FString Path = FPaths::Combine(FPaths::ProjectContentDir(), StartFile);
    FString Text;
    if (!FFileHelper::LoadFileToString(Text, *Path))
    {
        UE_LOG(LogWander, Warning, TEXT("Cannot read %s (is its folder staged? see the port's README): agents spawned instead"), *Path);
    }
    else if (!Flock->loadStart(std::string(TCHAR_TO_UTF8(*Text))))
    {
        UE_LOG(LogWander, Warning, TEXT("%s is not a start of these groups (counts edited?): agents spawned instead"), *Path);
    }
}

void UWanderComponent::EndPlay(const EEndPlayReason::Type EndPlayReason)
{
    if (Instances)
    {
        Instances->DestroyComponent();
        Instances = nullptr;
    }
    Flock.reset();
    Super::EndPlay(EndPlayReason);
}

void UWanderComponent::TickComponent(float DeltaTime, ELevelTick TickType,
                                     FActorComponentTickFunction* ThisTickFunction)
{
    Super::TickComponent(DeltaTime, TickType, ThisTickFunction);
    if (!Flock)
    {
        return;
    }
    ApplySettings();
    Alpha = Flock->update(DeltaTime);
    PlaceAgents();
    // Moved, not teleported: the renderer keeps each instance's previous transform, so TAA and
    // TSR get motion vectors.
    Instances->BatchUpdateInstancesTransforms(0, InstanceTransforms, /*bWorldSpace=*/false,
                                              /*bMarkRenderStateDirty=*/true, /*bTeleport=*/false);
    if (bDebugDraw)
    {
        DrawDebug();
    }
}

void UWanderComponent::ApplySettings()
{
    Flock->box = wander3d::WanderBox{Corner(BoxMin), Corner(BoxMax), Margin};
    const int32 Known = FMath::Clamp(Groups.Num(), 0, static_cast<int32>(Flock->groups.size()));
    for (int32 G = 0; G < Known; G++)
    {
        const wander3d::WanderParams Wanted = ToCore(Groups[G]);
        if (Wanted.method != Flock->groups[G].wander.params.method)
        {
            Flock->setMethod(G, Wanted.method);  // each target stays where it is
        }
        Flock->groups[G].wander.params = Wanted;
    }
}

FTransform UWanderComponent::AgentTransform(int32 Agent) const
{
    const FVector Forward = ToUnreal(Flock->agents[Agent].heading);
    const FQuat Rotation = FRotationMatrix::MakeFromXZ(Forward, FVector::UpVector).ToQuat();
    return FTransform(Rotation, ToUnreal(Flock->positionAt(Agent, Alpha)) * UnitsToCm);
}

void UWanderComponent::PlaceAgents()
{
    InstanceTransforms.SetNumUninitialized(Flock->count());  // allocates only when agents were added
    for (int32 I = 0; I < Flock->count(); I++)
    {
        InstanceTransforms[I] = AgentTransform(I);
    }
}

void UWanderComponent::DrawDebug() const
{
    const UWorld* World = GetWorld();
    const FTransform& Frame = GetOwner()->GetActorTransform();
    for (int32 I = 0; I < Flock->count(); I++)
    {
        wander3d::Vec3 Centre;
        const double Radius = Flock->wanderSphere(I, Centre);
        if (Radius > 0.0)
        {
            DrawDebugSphere(World, Frame.TransformPosition(ToUnreal(Centre) * UnitsToCm), static_cast<float>(Radius * UnitsToCm), 12, FColor::Cyan);
        }
        const FVector Target = Frame.TransformPosition(ToUnreal(Flock->target(I)) * UnitsToCm);
        DrawDebugPoint(World, Target, 8.f, FColor::Yellow);
        DrawDebugLine(World, Frame.TransformPosition(ToUnreal(Flock->position[I]) * UnitsToCm), Target, FColor::Yellow);
    }
    const FVector Low = ToUnreal(Flock->box.min) * UnitsToCm;
    const FVector High = ToUnreal(Flock->box.max) * UnitsToCm;
    DrawDebugBox(World, Frame.TransformPosition((Low + High) * 0.5), (High - Low) * 0.5, Frame.GetRotation(), FColor::Silver);
}

bool UWanderComponent::IsAgent(int32 Agent) const
{
    return Flock && Agent >= 0 && Agent < Flock->count();
}

int32 UWanderComponent::GetAgentCount() const
{
    return Flock ? Flock->count() : 0;
}

FVector UWanderComponent::GetAgentLocation(int32 Agent) const
{
    if (!IsAgent(Agent))
    {
        return FVector::ZeroVector;
    }
    return GetOwner()->GetActorTransform().TransformPosition(ToUnreal(Flock->positionAt(Agent, Alpha)) * UnitsToCm);
}

FVector UWanderComponent::GetAgentVelocity(int32 Agent) const
{
    if (!IsAgent(Agent))
    {
        return FVector::ZeroVector;
    }
    return GetOwner()->GetActorTransform().TransformVector(ToUnreal(Flock->velocity[Agent]) * UnitsToCm);
}

FVector UWanderComponent::GetAgentHeading(int32 Agent) const
{
    if (!IsAgent(Agent))
    {
        return FVector::ZeroVector;
    }
    return GetOwner()->GetActorTransform().TransformVectorNoScale(ToUnreal(Flock->agents[Agent].heading));
}

int32 UWanderComponent::GetAgentGroup(int32 Agent) const
{
    return IsAgent(Agent) ? Flock->groupOf[Agent] : INDEX_NONE;
}

FWanderGroup UWanderComponent::GetGroup(int32 Group) const
{
    return Groups.IsValidIndex(Group) ? Groups[Group] : FWanderGroup();
}

void UWanderComponent::SetGroup(int32 Group, const FWanderGroup& Settings)
{
    if (!Groups.IsValidIndex(Group))
    {
        UE_LOG(LogWander, Warning, TEXT("SetGroup: no group %d"), Group);
        return;
    }
    FWanderGroup& Kept = Groups[Group];
    const FString Name = Kept.Name;
    const int32 Count = Kept.Count;
    Kept = Settings;
    Kept.Name = Name;
    Kept.Count = Count;
}

int32 UWanderComponent::AddAgent(int32 Group, FVector Location, FVector Velocity)
{
    if (!Flock || Group < 0 || Group >= static_cast<int32>(Flock->groups.size()))
    {
        UE_LOG(LogWander, Warning, TEXT("AddAgent: no group %d (or not playing)"), Group);
        return INDEX_NONE;
    }
    const FTransform& Frame = GetOwner()->GetActorTransform();
    const wander3d::Vec3 At = FromUnreal(Frame.InverseTransformPosition(Location) / UnitsToCm);
    const wander3d::Vec3 Moving = FromUnreal(Frame.InverseTransformVector(Velocity) / UnitsToCm);
    const int32 Agent = Flock->add(Group, At, Moving);
    PlaceAgents();
    Instances->AddInstance(InstanceTransforms[Agent], /*bWorldSpace=*/false);
    return Agent;
}

bool UWanderComponent::RemoveAgent(int32 Agent)
{
    if (!IsAgent(Agent))
    {
        return false;
    }
    Flock->remove(Agent);
    Instances->RemoveInstance(Agent);  // keeps the others' order, as the flock does
    return true;
}
