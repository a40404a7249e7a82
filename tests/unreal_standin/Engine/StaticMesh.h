// Stand-in for UE 5's Engine/StaticMesh.h (see CoreMinimal.h).
#pragma once

#include "CoreMinimal.h"

class UStaticMesh : public UObject {};
