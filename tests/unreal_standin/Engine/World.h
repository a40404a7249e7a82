// Stand-in for UE 5's Engine/World.h (see CoreMinimal.h).
#pragma once

#include "CoreMinimal.h"

class UWorld : public UObject {};
