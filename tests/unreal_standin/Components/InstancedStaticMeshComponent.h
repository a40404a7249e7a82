// Stand-in for UE 5's Components/InstancedStaticMeshComponent.h (see CoreMinimal.h), with UE
// 5's signatures; it keeps the instances' transforms and counts the updates that teleport.
#pragma once

#include "CoreMinimal.h"
#include "Components/ActorComponent.h"

class UStaticMesh;

class UStaticMeshComponent : public UPrimitiveComponent {
public:
    virtual bool SetStaticMesh(UStaticMesh* NewMesh) {
        StaticMesh = NewMesh;
        return true;
    }
    UStaticMesh* GetStaticMesh() const { return StaticMesh; }

private:
    UStaticMesh* StaticMesh = nullptr;
};

class UInstancedStaticMeshComponent : public UStaticMeshComponent {
public:
    virtual int32 AddInstance(const FTransform& InstanceTransform, bool bWorldSpace = false) {
        (void)bWorldSpace;
        return Instances.Add(InstanceTransform);
    }
    virtual TArray<int32> AddInstances(const TArray<FTransform>& InstanceTransforms, bool bShouldReturnIndices,
                                       bool bWorldSpace = false, bool bUpdateNavigation = true) {
        (void)bWorldSpace;
        (void)bUpdateNavigation;
        TArray<int32> Indices;
        for (const FTransform& Transform : InstanceTransforms) {
            const int32 Index = Instances.Add(Transform);
            if (bShouldReturnIndices) Indices.Add(Index);
        }
        return Indices;
    }
    virtual bool RemoveInstance(int32 InstanceIndex) {
        if (!Instances.IsValidIndex(InstanceIndex)) return false;
        Instances.RemoveAt(InstanceIndex);
        return true;
    }
    virtual void ClearInstances() { Instances.Empty(); }
    int32 GetInstanceCount() const { return Instances.Num(); }
    virtual bool UpdateInstanceTransform(int32 InstanceIndex, const FTransform& NewInstanceTransform,
                                         bool bWorldSpace = false, bool bMarkRenderStateDirty = false,
                                         bool bTeleport = false) {
        (void)bWorldSpace;
        (void)bMarkRenderStateDirty;
        if (!Instances.IsValidIndex(InstanceIndex)) return false;
        Instances[InstanceIndex] = NewInstanceTransform;
        Updates++;
        Teleports += bTeleport ? 1 : 0;
        return true;
    }
    virtual bool BatchUpdateInstancesTransforms(int32 StartInstanceIndex,
                                                const TArray<FTransform>& NewInstancesTransforms,
                                                bool bWorldSpace = false, bool bMarkRenderStateDirty = false,
                                                bool bTeleport = false) {
        (void)bWorldSpace;
        (void)bMarkRenderStateDirty;
        if (StartInstanceIndex + NewInstancesTransforms.Num() > Instances.Num()) return false;
        for (int32 I = 0; I < NewInstancesTransforms.Num(); I++) Instances[StartInstanceIndex + I] = NewInstancesTransforms[I];
        Updates++;
        Teleports += bTeleport ? 1 : 0;
        return true;
    }

    TArray<FTransform> Instances;  // stand-in: the instances' transforms (component space)
    int32 Updates = 0;             // stand-in: calls that moved instances
    int32 Teleports = 0;           // stand-in: of those, how many teleported
};
