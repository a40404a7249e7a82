// SPDX-FileCopyrightText: 2026 The wander3d authors
// SPDX-License-Identifier: MIT
// WanderComponent.cpp: see WanderComponent.h.

#include "WanderComponent.h"

#include "Components/InstancedStaticMeshComponent.h"
#include "DrawDebugHelpers.h"
#include "GameFramework/Actor.h"
#include "Misc/FileHelper.h"
#include "Misc/Paths.h"

UWanderComponent::UWanderComponent()
{
    PrimaryComponentTick.bCanEverTick = true;
}

void UWanderComponent::BeginPlay()
{
    Super::BeginPlay();
    Flock = std::make_unique<wander3d::Flock>(wander3d::scene());
    FString Start;
    if (!StartFile.FilePath.IsEmpty())
    {
        const FString Path = FPaths::ConvertRelativePathToFull(FPaths::ProjectDir(), StartFile.FilePath);
        if (!FFileHelper::LoadFileToString(Start, *Path) || !Flock->loadStart(TCHAR_TO_UTF8(*Start)))
        {
            UE_LOG(LogTemp, Warning, TEXT("Wander: %s is not a start of this scene; spawning instead"), *Path);
        }
    }
    AActor* Owner = GetOwner();
    Instances = NewObject<UInstancedStaticMeshComponent>(Owner, TEXT("WanderAgents"));
    Instances->SetStaticMesh(AgentMesh);
    Instances->SetupAttachment(Owner->GetRootComponent());
    Instances->RegisterComponent();
    Owner->AddInstanceComponent(Instances);  // listed in the actor's Details panel
    TArray<FTransform> Transforms;
    Transforms.Init(FTransform::Identity, Flock->count);
    Instances->AddInstances(Transforms, false);
    PlaceAgents(0.0);
}

void UWanderComponent::TickComponent(float DeltaTime, ELevelTick TickType,
                                     FActorComponentTickFunction* ThisTickFunction)
{
    Super::TickComponent(DeltaTime, TickType, ThisTickFunction);
    PlaceAgents(Flock->update(DeltaTime));
    if (bDebugDraw)
        DrawDebug();
}

FVector UWanderComponent::ToUnreal(double X, double Y, double Z) const
{
    // wander3d is right-handed with +y up; swapping y and z gives Unreal's left-handed +Z up.
    return FVector(X, Z, Y) * UnitsToCm;
}

void UWanderComponent::PlaceAgents(double Alpha)
{
    TArray<FTransform> Transforms;
    Transforms.Reserve(Flock->count);
    for (int I = 0; I < Flock->count; I++)
    {
        double X, Y, Z;
        Flock->positionAt(I, Alpha, X, Y, Z);
        const double* H = &Flock->heading[3 * I];
        const FVector Forward(H[0], H[2], H[1]);
        Transforms.Add(FTransform(FRotationMatrix::MakeFromX(Forward).ToQuat(), ToUnreal(X, Y, Z)));
    }
    Instances->BatchUpdateInstancesTransforms(0, Transforms, false, true, true);
}

void UWanderComponent::DrawDebug() const
{
    const UWorld* World = GetWorld();
    const FTransform& Box = GetOwner()->GetActorTransform();
    for (int I = 0; I < Flock->count; I++)
    {
        double X, Y, Z;
        const double Radius = Flock->wanderSphere(I, X, Y, Z);
        if (Radius > 0.0)
            DrawDebugSphere(World, Box.TransformPosition(ToUnreal(X, Y, Z)), static_cast<float>(Radius * UnitsToCm), 12, FColor::Cyan);
        const double* T = &Flock->target[3 * I];
        const FVector Target = Box.TransformPosition(ToUnreal(T[0], T[1], T[2]));
        const double* P = &Flock->position[3 * I];
        DrawDebugPoint(World, Target, 8.f, FColor::Yellow);
        DrawDebugLine(World, Box.TransformPosition(ToUnreal(P[0], P[1], P[2])), Target, FColor::Yellow);
    }
    const FVector Low = ToUnreal(Flock->low[0], Flock->low[1], Flock->low[2]);
    const FVector High = ToUnreal(Flock->high[0], Flock->high[1], Flock->high[2]);
    DrawDebugBox(World, Box.TransformPosition((Low + High) * 0.5), (High - Low) * 0.5, Box.GetRotation(), FColor::Silver);
}
