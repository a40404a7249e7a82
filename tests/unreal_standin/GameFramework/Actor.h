// Stand-in for UE 5's GameFramework/Actor.h (see CoreMinimal.h).
#pragma once

#include "CoreMinimal.h"
#include "Components/ActorComponent.h"

class AActor : public UObject {
public:
    AActor() { RootComponent = new USceneComponent(); }
    USceneComponent* GetRootComponent() const { return RootComponent; }
    void AddInstanceComponent(UActorComponent* Component) { InstanceComponents.Add(Component); }
    const FTransform& GetActorTransform() const { return ActorTransform; }
    UWorld* GetWorld() const override { return World; }

    FTransform ActorTransform;  // stand-in: where the test puts the actor
    UWorld* World = nullptr;    // stand-in: the world it plays in
    TArray<UActorComponent*> InstanceComponents;

private:
    USceneComponent* RootComponent;
};

inline AActor* UActorComponent::GetOwner() const {
    for (UObject* Parent = GetOuter(); Parent; Parent = Parent->GetOuter())
        if (AActor* Actor = dynamic_cast<AActor*>(Parent)) return Actor;
    return nullptr;
}
