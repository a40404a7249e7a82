// Stand-in for UE 5's Components/ActorComponent.h (see CoreMinimal.h): UActorComponent and
// its tick, with UE 5's signatures.
#pragma once

#include "CoreMinimal.h"

enum ELevelTick { LEVELTICK_TimeOnly = 0, LEVELTICK_ViewportsOnly = 1, LEVELTICK_All = 2, LEVELTICK_PauseTick = 3 };

enum ETickingGroup { TG_PrePhysics, TG_StartPhysics, TG_DuringPhysics, TG_EndPhysics, TG_PostPhysics };

struct FActorComponentTickFunction {
    uint8 bCanEverTick : 1;
    uint8 bStartWithTickEnabled : 1;
    uint8 bTickEvenWhenPaused : 1;
    ETickingGroup TickGroup = TG_DuringPhysics;
    FActorComponentTickFunction() : bCanEverTick(false), bStartWithTickEnabled(true), bTickEvenWhenPaused(false) {}
};

namespace EEndPlayReason {
enum Type { Destroyed, LevelTransition, EndPlayInEditor, RemovedFromWorld, Quit };
}

class UActorComponent : public UObject {
public:
    FActorComponentTickFunction PrimaryComponentTick;

    virtual ~UActorComponent() = default;
    virtual void BeginPlay() { bHasBegunPlay = true; }
    virtual void EndPlay(const EEndPlayReason::Type EndPlayReason) { (void)EndPlayReason; }
    virtual void TickComponent(float DeltaTime, enum ELevelTick TickType, FActorComponentTickFunction* ThisTickFunction) {
        (void)DeltaTime;
        (void)TickType;
        (void)ThisTickFunction;
    }
#if WITH_EDITOR
    virtual void PostEditChangeProperty(FPropertyChangedEvent& PropertyChangedEvent) { (void)PropertyChangedEvent; }
#endif
    AActor* GetOwner() const;
    void RegisterComponent() { bRegistered = true; }
    void DestroyComponent(bool bPromoteChildren = false) {
        (void)bPromoteChildren;
        bRegistered = false;
    }
    bool IsRegistered() const { return bRegistered; }
    bool HasBegunPlay() const { return bHasBegunPlay; }

private:
    bool bRegistered = false;
    bool bHasBegunPlay = false;
};

class USceneComponent : public UActorComponent {
public:
    void SetupAttachment(USceneComponent* InParent, FName InSocketName = NAME_None) {
        (void)InSocketName;
        AttachParent = InParent;
    }
    USceneComponent* GetAttachParent() const { return AttachParent; }

private:
    USceneComponent* AttachParent = nullptr;
};

class UPrimitiveComponent : public USceneComponent {};
