// Stand-in for Unreal Engine 5's CoreMinimal.h, for tests/test_port_cpp.py: the part of UE 5's
// API the wander3d component uses, with UE 5's signatures (dev.epicgames.com API reference),
// and the macros every UE 5 module sees, defined as UE defines them: the legacy math
// constants of UnrealMathUtility.h (UE_DEFINE_LEGACY_MATH_CONSTANT_MACRO_NAMES is 1 by
// default), the assertion macros of AssertionMacros.h, TEXT, LIKELY. A name of the port that
// one of them would expand breaks the build here as it does in Unreal.
//
// The types are small working versions (FVector is UE 5's double vector, FTransform rotates,
// TArray counts its allocations in StandIn::Allocations) so that a test can run the
// component, not only compile it. The UObject macros expand to nothing; GENERATED_BODY pastes
// the macro that the generated header (written by the test, as UHT would) defines per line.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

// ------------------------------------------------------------- CoreTypes, Platform.h
typedef std::int8_t int8;
typedef std::int16_t int16;
typedef std::int32_t int32;
typedef std::int64_t int64;
typedef std::uint8_t uint8;
typedef std::uint16_t uint16;
typedef std::uint32_t uint32;
typedef std::uint64_t uint64;
typedef char16_t TCHAR;  // UE 5 on Linux and Mac: WIDECHAR is char16_t
typedef char ANSICHAR;
typedef char UTF8CHAR;

#define TEXT_PASTE(x) u##x
#define TEXT(x) TEXT_PASTE(x)
#define FORCEINLINE inline __attribute__((always_inline))
#define FORCENOINLINE __attribute__((noinline))
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#define UE_ARRAY_COUNT(array) (sizeof(array) / sizeof((array)[0]))
#define INDEX_NONE (-1)
#ifndef WITH_EDITOR
#define WITH_EDITOR 0
#endif
#ifndef UE_BUILD_SHIPPING
#define UE_BUILD_SHIPPING 0
#endif
#define ENABLE_DRAW_DEBUG !UE_BUILD_SHIPPING
#define ENGINE_API
#define CORE_API
#define COREUOBJECT_API

namespace StandIn {
inline int Allocations = 0;  // TArray growths since the start
inline int Checks = 0;       // failed check/verify/ensure
inline void Failed(const char* what) {
    Checks++;
    std::fprintf(stderr, "assertion failed: %s\n", what);
}
}  // namespace StandIn

// ------------------------------------------------------------- Misc/AssertionMacros.h
#define check(expr)                                  \
    {                                                \
        if (UNLIKELY(!(expr))) StandIn::Failed(#expr); \
    }
#define checkf(expr, format, ...) check(expr)
#define checkSlow(expr)
#define checkfSlow(expr, format, ...)
#define checkCode(Code) \
    do {                \
        Code;           \
    } while (false)
#define checkNoEntry() StandIn::Failed("checkNoEntry")
#define checkNoReentry()
#define checkNoRecursion()
#define unimplemented() StandIn::Failed("unimplemented")
#define verify(expr)                                 \
    {                                                \
        if (UNLIKELY(!(expr))) StandIn::Failed(#expr); \
    }
#define verifyf(expr, format, ...) verify(expr)
#define ensure(InExpression) (LIKELY(!!(InExpression)) || (StandIn::Failed(#InExpression), false))
#define ensureMsgf(InExpression, InFormat, ...) ensure(InExpression)
#define ensureAlways(InExpression) ensure(InExpression)
#define ensureAlwaysMsgf(InExpression, InFormat, ...) ensure(InExpression)

// ------------------------------------------------------------- Math/UnrealMathUtility.h
#define UE_PI (3.1415926535897932f)
#define UE_SMALL_NUMBER (1.e-8f)
#define UE_KINDA_SMALL_NUMBER (1.e-4f)
#define UE_BIG_NUMBER (3.4e+38f)
#define UE_EULERS_NUMBER (2.71828182845904523536f)
#define UE_GOLDEN_RATIO (1.6180339887498948482045868343656381f)
#define UE_FLOAT_NON_FRACTIONAL (8388608.f)
#define UE_DOUBLE_PI (3.141592653589793238462643383279502884197169399)
#define UE_DOUBLE_SMALL_NUMBER (1.e-8)
#define UE_DOUBLE_KINDA_SMALL_NUMBER (1.e-4)
#define UE_DOUBLE_BIG_NUMBER (3.4e+38)
#define UE_DOUBLE_EULERS_NUMBER (2.7182818284590452353602874713526624977572)
#define UE_DOUBLE_GOLDEN_RATIO (1.6180339887498948482045868343656381)
#define UE_DOUBLE_NON_FRACTIONAL (4503599627370496.0)
#define UE_MAX_FLT 3.402823466e+38F
#define UE_INV_PI (0.31830988618f)
#define UE_HALF_PI (1.57079632679f)
#define UE_TWO_PI (6.28318530717f)
#define UE_PI_SQUARED (9.86960440108f)
#define UE_DOUBLE_INV_PI (0.31830988618379067154)
#define UE_DOUBLE_HALF_PI (1.57079632679489661923)
#define UE_DOUBLE_TWO_PI (6.28318530717958647692)
#define UE_DOUBLE_PI_SQUARED (9.86960440108935861883)
#define UE_DOUBLE_SQRT_2 (1.4142135623730950488016887242097)
#define UE_DOUBLE_SQRT_3 (1.7320508075688772935274463415059)
#define UE_DOUBLE_INV_SQRT_2 (0.70710678118654752440084436210485)
#define UE_DOUBLE_INV_SQRT_3 (0.57735026918962576450914878050196)
#define UE_DOUBLE_HALF_SQRT_2 (0.70710678118654752440084436210485)
#define UE_DOUBLE_HALF_SQRT_3 (0.86602540378443864676372317075294)
#define UE_DELTA (0.00001f)
#define UE_DOUBLE_DELTA (0.00001)
#define UE_FLOAT_NORMAL_THRESH (0.0001f)
#define UE_DOUBLE_NORMAL_THRESH (0.0001)
#define UE_THRESH_POINT_ON_PLANE (0.10f)
#define UE_THRESH_POINT_ON_SIDE (0.20f)
#define UE_THRESH_POINTS_ARE_SAME (0.00002f)
#define UE_THRESH_POINTS_ARE_NEAR (0.015f)
#define UE_THRESH_NORMALS_ARE_SAME (0.00002f)
#define UE_THRESH_UVS_ARE_SAME (0.0009765625f)
#define UE_THRESH_VECTORS_ARE_NEAR (0.0004f)
#define UE_THRESH_SPLIT_POLY_WITH_PLANE (0.25f)
#define UE_THRESH_SPLIT_POLY_PRECISELY (0.01f)
#define UE_THRESH_ZERO_NORM_SQUARED (0.0001f)
#define UE_THRESH_NORMALS_ARE_PARALLEL (0.999845f)
#define UE_THRESH_NORMALS_ARE_ORTHOGONAL (0.017455f)
#define UE_THRESH_VECTOR_NORMALIZED (0.01f)
#define UE_THRESH_QUAT_NORMALIZED (0.01f)
#define UE_DOUBLE_THRESH_POINT_ON_PLANE (0.10)
#define UE_DOUBLE_THRESH_POINT_ON_SIDE (0.20)
#define UE_DOUBLE_THRESH_POINTS_ARE_SAME (0.00002)
#define UE_DOUBLE_THRESH_POINTS_ARE_NEAR (0.015)
#define UE_DOUBLE_THRESH_NORMALS_ARE_SAME (0.00002)
#define UE_DOUBLE_THRESH_UVS_ARE_SAME (0.0009765625)
#define UE_DOUBLE_THRESH_VECTORS_ARE_NEAR (0.0004)
#define UE_DOUBLE_THRESH_SPLIT_POLY_WITH_PLANE (0.25)
#define UE_DOUBLE_THRESH_SPLIT_POLY_PRECISELY (0.01)
#define UE_DOUBLE_THRESH_ZERO_NORM_SQUARED (0.0001)
#define UE_DOUBLE_THRESH_NORMALS_ARE_PARALLEL (0.999845)
#define UE_DOUBLE_THRESH_NORMALS_ARE_ORTHOGONAL (0.017455)
#define UE_DOUBLE_THRESH_VECTOR_NORMALIZED (0.01)
#define UE_DOUBLE_THRESH_QUAT_NORMALIZED (0.01)

#ifndef UE_DEFINE_LEGACY_MATH_CONSTANT_MACRO_NAMES
#define UE_DEFINE_LEGACY_MATH_CONSTANT_MACRO_NAMES 1
#endif
#if UE_DEFINE_LEGACY_MATH_CONSTANT_MACRO_NAMES
#define UE_PRIVATE_MATH_DEPRECATION(Before, After)
#undef PI
#define PI UE_PRIVATE_MATH_DEPRECATION(PI, UE_PI) UE_PI
#define SMALL_NUMBER UE_PRIVATE_MATH_DEPRECATION(SMALL_NUMBER, UE_SMALL_NUMBER) UE_SMALL_NUMBER
#define KINDA_SMALL_NUMBER UE_PRIVATE_MATH_DEPRECATION(KINDA_SMALL_NUMBER, UE_KINDA_SMALL_NUMBER) UE_KINDA_SMALL_NUMBER
#define BIG_NUMBER UE_PRIVATE_MATH_DEPRECATION(BIG_NUMBER, UE_BIG_NUMBER) UE_BIG_NUMBER
#define EULERS_NUMBER UE_PRIVATE_MATH_DEPRECATION(EULERS_NUMBER, UE_EULERS_NUMBER) UE_EULERS_NUMBER
#define FLOAT_NON_FRACTIONAL UE_PRIVATE_MATH_DEPRECATION(FLOAT_NON_FRACTIONAL, UE_FLOAT_NON_FRACTIONAL) UE_FLOAT_NON_FRACTIONAL
#define DOUBLE_PI UE_PRIVATE_MATH_DEPRECATION(DOUBLE_PI, UE_DOUBLE_PI) UE_DOUBLE_PI
#define DOUBLE_SMALL_NUMBER UE_PRIVATE_MATH_DEPRECATION(DOUBLE_SMALL_NUMBER, UE_DOUBLE_SMALL_NUMBER) UE_DOUBLE_SMALL_NUMBER
#define DOUBLE_KINDA_SMALL_NUMBER UE_PRIVATE_MATH_DEPRECATION(DOUBLE_KINDA_SMALL_NUMBER, UE_DOUBLE_KINDA_SMALL_NUMBER) UE_DOUBLE_KINDA_SMALL_NUMBER
#define DOUBLE_BIG_NUMBER UE_PRIVATE_MATH_DEPRECATION(DOUBLE_BIG_NUMBER, UE_DOUBLE_BIG_NUMBER) UE_DOUBLE_BIG_NUMBER
#define DOUBLE_EULERS_NUMBER UE_PRIVATE_MATH_DEPRECATION(DOUBLE_EULERS_NUMBER, UE_DOUBLE_EULERS_NUMBER) UE_DOUBLE_EULERS_NUMBER
#define DOUBLE_UE_GOLDEN_RATIO UE_PRIVATE_MATH_DEPRECATION(DOUBLE_UE_GOLDEN_RATIO, UE_DOUBLE_GOLDEN_RATIO) UE_DOUBLE_GOLDEN_RATIO
#define DOUBLE_NON_FRACTIONAL UE_PRIVATE_MATH_DEPRECATION(DOUBLE_NON_FRACTIONAL, UE_DOUBLE_NON_FRACTIONAL) UE_DOUBLE_NON_FRACTIONAL
#define MAX_FLT UE_PRIVATE_MATH_DEPRECATION(MAX_FLT, UE_MAX_FLT) UE_MAX_FLT
#define INV_PI UE_PRIVATE_MATH_DEPRECATION(INV_PI, UE_INV_PI) UE_INV_PI
#define HALF_PI UE_PRIVATE_MATH_DEPRECATION(HALF_PI, UE_HALF_PI) UE_HALF_PI
#define TWO_PI UE_PRIVATE_MATH_DEPRECATION(TWO_PI, UE_TWO_PI) UE_TWO_PI
#define PI_SQUARED UE_PRIVATE_MATH_DEPRECATION(PI_SQUARED, UE_PI_SQUARED) UE_PI_SQUARED
#define DOUBLE_INV_PI UE_PRIVATE_MATH_DEPRECATION(DOUBLE_INV_PI, UE_DOUBLE_INV_PI) UE_DOUBLE_INV_PI
#define DOUBLE_HALF_PI UE_PRIVATE_MATH_DEPRECATION(DOUBLE_HALF_PI, UE_DOUBLE_HALF_PI) UE_DOUBLE_HALF_PI
#define DOUBLE_TWO_PI UE_PRIVATE_MATH_DEPRECATION(DOUBLE_TWO_PI, UE_DOUBLE_TWO_PI) UE_DOUBLE_TWO_PI
#define DOUBLE_PI_SQUARED UE_PRIVATE_MATH_DEPRECATION(DOUBLE_PI_SQUARED, UE_DOUBLE_PI_SQUARED) UE_DOUBLE_PI_SQUARED
#define DOUBLE_UE_SQRT_2 UE_PRIVATE_MATH_DEPRECATION(DOUBLE_UE_SQRT_2, UE_DOUBLE_SQRT_2) UE_DOUBLE_SQRT_2
#define DOUBLE_UE_SQRT_3 UE_PRIVATE_MATH_DEPRECATION(DOUBLE_UE_SQRT_3, UE_DOUBLE_SQRT_3) UE_DOUBLE_SQRT_3
#define DOUBLE_UE_INV_SQRT_2 UE_PRIVATE_MATH_DEPRECATION(DOUBLE_UE_INV_SQRT_2, UE_DOUBLE_INV_SQRT_2) UE_DOUBLE_INV_SQRT_2
#define DOUBLE_UE_INV_SQRT_3 UE_PRIVATE_MATH_DEPRECATION(DOUBLE_UE_INV_SQRT_3, UE_DOUBLE_INV_SQRT_3) UE_DOUBLE_INV_SQRT_3
#define DOUBLE_UE_HALF_SQRT_2 UE_PRIVATE_MATH_DEPRECATION(DOUBLE_UE_HALF_SQRT_2, UE_DOUBLE_HALF_SQRT_2) UE_DOUBLE_HALF_SQRT_2
#define DOUBLE_UE_HALF_SQRT_3 UE_PRIVATE_MATH_DEPRECATION(DOUBLE_UE_HALF_SQRT_3, UE_DOUBLE_HALF_SQRT_3) UE_DOUBLE_HALF_SQRT_3
#define DELTA UE_PRIVATE_MATH_DEPRECATION(DELTA, UE_DELTA) UE_DELTA
#define DOUBLE_DELTA UE_PRIVATE_MATH_DEPRECATION(DOUBLE_DELTA, UE_DOUBLE_DELTA) UE_DOUBLE_DELTA
#define FLOAT_NORMAL_THRESH UE_PRIVATE_MATH_DEPRECATION(FLOAT_NORMAL_THRESH, UE_FLOAT_NORMAL_THRESH) UE_FLOAT_NORMAL_THRESH
#define DOUBLE_NORMAL_THRESH UE_PRIVATE_MATH_DEPRECATION(DOUBLE_NORMAL_THRESH, UE_DOUBLE_NORMAL_THRESH) UE_DOUBLE_NORMAL_THRESH
#define THRESH_POINT_ON_PLANE UE_PRIVATE_MATH_DEPRECATION(THRESH_POINT_ON_PLANE, UE_THRESH_POINT_ON_PLANE) UE_THRESH_POINT_ON_PLANE
#define THRESH_POINT_ON_SIDE UE_PRIVATE_MATH_DEPRECATION(THRESH_POINT_ON_SIDE, UE_THRESH_POINT_ON_SIDE) UE_THRESH_POINT_ON_SIDE
#define THRESH_POINTS_ARE_SAME UE_PRIVATE_MATH_DEPRECATION(THRESH_POINTS_ARE_SAME, UE_THRESH_POINTS_ARE_SAME) UE_THRESH_POINTS_ARE_SAME
#define THRESH_POINTS_ARE_NEAR UE_PRIVATE_MATH_DEPRECATION(THRESH_POINTS_ARE_NEAR, UE_THRESH_POINTS_ARE_NEAR) UE_THRESH_POINTS_ARE_NEAR
#define THRESH_NORMALS_ARE_SAME UE_PRIVATE_MATH_DEPRECATION(THRESH_NORMALS_ARE_SAME, UE_THRESH_NORMALS_ARE_SAME) UE_THRESH_NORMALS_ARE_SAME
#define THRESH_UVS_ARE_SAME UE_PRIVATE_MATH_DEPRECATION(THRESH_UVS_ARE_SAME, UE_THRESH_UVS_ARE_SAME) UE_THRESH_UVS_ARE_SAME
#define THRESH_VECTORS_ARE_NEAR UE_PRIVATE_MATH_DEPRECATION(THRESH_VECTORS_ARE_NEAR, UE_THRESH_VECTORS_ARE_NEAR) UE_THRESH_VECTORS_ARE_NEAR
#define THRESH_SPLIT_POLY_WITH_PLANE UE_PRIVATE_MATH_DEPRECATION(THRESH_SPLIT_POLY_WITH_PLANE, UE_THRESH_SPLIT_POLY_WITH_PLANE) UE_THRESH_SPLIT_POLY_WITH_PLANE
#define THRESH_SPLIT_POLY_PRECISELY UE_PRIVATE_MATH_DEPRECATION(THRESH_SPLIT_POLY_PRECISELY, UE_THRESH_SPLIT_POLY_PRECISELY) UE_THRESH_SPLIT_POLY_PRECISELY
#define THRESH_ZERO_NORM_SQUARED UE_PRIVATE_MATH_DEPRECATION(THRESH_ZERO_NORM_SQUARED, UE_THRESH_ZERO_NORM_SQUARED) UE_THRESH_ZERO_NORM_SQUARED
#define THRESH_NORMALS_ARE_PARALLEL UE_PRIVATE_MATH_DEPRECATION(THRESH_NORMALS_ARE_PARALLEL, UE_THRESH_NORMALS_ARE_PARALLEL) UE_THRESH_NORMALS_ARE_PARALLEL
#define THRESH_NORMALS_ARE_ORTHOGONAL UE_PRIVATE_MATH_DEPRECATION(THRESH_NORMALS_ARE_ORTHOGONAL, UE_THRESH_NORMALS_ARE_ORTHOGONAL) UE_THRESH_NORMALS_ARE_ORTHOGONAL
#define THRESH_VECTOR_NORMALIZED UE_PRIVATE_MATH_DEPRECATION(THRESH_VECTOR_NORMALIZED, UE_THRESH_VECTOR_NORMALIZED) UE_THRESH_VECTOR_NORMALIZED
#define THRESH_QUAT_NORMALIZED UE_PRIVATE_MATH_DEPRECATION(THRESH_QUAT_NORMALIZED, UE_THRESH_QUAT_NORMALIZED) UE_THRESH_QUAT_NORMALIZED
#define DOUBLE_THRESH_POINT_ON_PLANE UE_PRIVATE_MATH_DEPRECATION(DOUBLE_THRESH_POINT_ON_PLANE, UE_DOUBLE_THRESH_POINT_ON_PLANE) UE_DOUBLE_THRESH_POINT_ON_PLANE
#define DOUBLE_THRESH_POINT_ON_SIDE UE_PRIVATE_MATH_DEPRECATION(DOUBLE_THRESH_POINT_ON_SIDE, UE_DOUBLE_THRESH_POINT_ON_SIDE) UE_DOUBLE_THRESH_POINT_ON_SIDE
#define DOUBLE_THRESH_POINTS_ARE_SAME UE_PRIVATE_MATH_DEPRECATION(DOUBLE_THRESH_POINTS_ARE_SAME, UE_DOUBLE_THRESH_POINTS_ARE_SAME) UE_DOUBLE_THRESH_POINTS_ARE_SAME
#define DOUBLE_THRESH_POINTS_ARE_NEAR UE_PRIVATE_MATH_DEPRECATION(DOUBLE_THRESH_POINTS_ARE_NEAR, UE_DOUBLE_THRESH_POINTS_ARE_NEAR) UE_DOUBLE_THRESH_POINTS_ARE_NEAR
#define DOUBLE_THRESH_NORMALS_ARE_SAME UE_PRIVATE_MATH_DEPRECATION(DOUBLE_THRESH_NORMALS_ARE_SAME, UE_DOUBLE_THRESH_NORMALS_ARE_SAME) UE_DOUBLE_THRESH_NORMALS_ARE_SAME
#define DOUBLE_THRESH_UVS_ARE_SAME UE_PRIVATE_MATH_DEPRECATION(DOUBLE_THRESH_UVS_ARE_SAME, UE_DOUBLE_THRESH_UVS_ARE_SAME) UE_DOUBLE_THRESH_UVS_ARE_SAME
#define DOUBLE_THRESH_VECTORS_ARE_NEAR UE_PRIVATE_MATH_DEPRECATION(DOUBLE_THRESH_VECTORS_ARE_NEAR, UE_DOUBLE_THRESH_VECTORS_ARE_NEAR) UE_DOUBLE_THRESH_VECTORS_ARE_NEAR
#define DOUBLE_THRESH_SPLIT_POLY_WITH_PLANE UE_PRIVATE_MATH_DEPRECATION(DOUBLE_THRESH_SPLIT_POLY_WITH_PLANE, UE_DOUBLE_THRESH_SPLIT_POLY_WITH_PLANE) UE_DOUBLE_THRESH_SPLIT_POLY_WITH_PLANE
#define DOUBLE_THRESH_SPLIT_POLY_PRECISELY UE_PRIVATE_MATH_DEPRECATION(DOUBLE_THRESH_SPLIT_POLY_PRECISELY, UE_DOUBLE_THRESH_SPLIT_POLY_PRECISELY) UE_DOUBLE_THRESH_SPLIT_POLY_PRECISELY
#define DOUBLE_THRESH_ZERO_NORM_SQUARED UE_PRIVATE_MATH_DEPRECATION(DOUBLE_THRESH_ZERO_NORM_SQUARED, UE_DOUBLE_THRESH_ZERO_NORM_SQUARED) UE_DOUBLE_THRESH_ZERO_NORM_SQUARED
#define DOUBLE_THRESH_NORMALS_ARE_PARALLEL UE_PRIVATE_MATH_DEPRECATION(DOUBLE_THRESH_NORMALS_ARE_PARALLEL, UE_DOUBLE_THRESH_NORMALS_ARE_PARALLEL) UE_DOUBLE_THRESH_NORMALS_ARE_PARALLEL
#define DOUBLE_THRESH_NORMALS_ARE_ORTHOGONAL UE_PRIVATE_MATH_DEPRECATION(DOUBLE_THRESH_NORMALS_ARE_ORTHOGONAL, UE_DOUBLE_THRESH_NORMALS_ARE_ORTHOGONAL) UE_DOUBLE_THRESH_NORMALS_ARE_ORTHOGONAL
#define DOUBLE_THRESH_VECTOR_NORMALIZED UE_PRIVATE_MATH_DEPRECATION(DOUBLE_THRESH_VECTOR_NORMALIZED, UE_DOUBLE_THRESH_VECTOR_NORMALIZED) UE_DOUBLE_THRESH_VECTOR_NORMALIZED
#define DOUBLE_THRESH_QUAT_NORMALIZED UE_PRIVATE_MATH_DEPRECATION(DOUBLE_THRESH_QUAT_NORMALIZED, UE_DOUBLE_THRESH_QUAT_NORMALIZED) UE_DOUBLE_THRESH_QUAT_NORMALIZED
#endif

// ------------------------------------------------------------- UObject/ObjectMacros.h
#define UCLASS(...)
#define USTRUCT(...)
#define UENUM(...)
#define UINTERFACE(...)
#define UPROPERTY(...)
#define UFUNCTION(...)
#define UPARAM(...)
#define UMETA(...)
#define BODY_MACRO_COMBINE_INNER(A, B, C, D) A##B##C##D
#define BODY_MACRO_COMBINE(A, B, C, D) BODY_MACRO_COMBINE_INNER(A, B, C, D)
#define GENERATED_BODY(...) BODY_MACRO_COMBINE(CURRENT_FILE_ID, _, __LINE__, _GENERATED_BODY);

// ------------------------------------------------------------- TArray (Containers/Array.h)
template <typename InElementType>
class TArray {
public:
    typedef int32 SizeType;
    typedef InElementType ElementType;

    TArray() = default;
    TArray(std::initializer_list<InElementType> Items) {
        for (const InElementType& Item : Items) Add(Item);
    }
    TArray(const TArray& Other) { *this = Other; }
    TArray& operator=(const TArray& Other) {
        if (this != &Other) {
            SetNumUninitialized(Other.ArrayNum);
            for (SizeType I = 0; I < ArrayNum; I++) Data[I] = Other.Data[I];
        }
        return *this;
    }
    ~TArray() { delete[] Data; }

    SizeType Num() const { return ArrayNum; }
    SizeType Max() const { return ArrayMax; }
    bool IsEmpty() const { return ArrayNum == 0; }
    bool IsValidIndex(SizeType Index) const { return Index >= 0 && Index < ArrayNum; }
    InElementType* GetData() { return Data; }
    const InElementType* GetData() const { return Data; }
    InElementType& operator[](SizeType Index) { return Data[Index]; }
    const InElementType& operator[](SizeType Index) const { return Data[Index]; }
    InElementType* begin() { return Data; }
    InElementType* end() { return Data + ArrayNum; }
    const InElementType* begin() const { return Data; }
    const InElementType* end() const { return Data + ArrayNum; }

    void Reserve(SizeType Number) {
        if (Number > ArrayMax) Grow(Number);
    }
    void SetNumUninitialized(SizeType NewNum, bool bAllowShrinking = true) {
        (void)bAllowShrinking;
        Reserve(NewNum);
        ArrayNum = NewNum;
    }
    void SetNum(SizeType NewNum, bool bAllowShrinking = true) {
        const SizeType Old = ArrayNum;
        SetNumUninitialized(NewNum, bAllowShrinking);
        for (SizeType I = Old; I < NewNum; I++) Data[I] = InElementType();
    }
    void Init(const InElementType& Element, SizeType Number) {
        SetNumUninitialized(Number);
        for (SizeType I = 0; I < Number; I++) Data[I] = Element;
    }
    SizeType Add(const InElementType& Item) {
        if (ArrayNum == ArrayMax) Grow(ArrayMax ? ArrayMax * 2 : 4);
        Data[ArrayNum] = Item;
        return ArrayNum++;
    }
    void RemoveAt(SizeType Index) {
        for (SizeType I = Index; I + 1 < ArrayNum; I++) Data[I] = Data[I + 1];
        ArrayNum--;
    }
    void Empty(SizeType Slack = 0) {
        ArrayNum = 0;
        Reserve(Slack);
    }
    void Reset(SizeType NewSize = 0) {
        ArrayNum = 0;
        Reserve(NewSize);
    }

private:
    InElementType* Data = nullptr;
    SizeType ArrayNum = 0;
    SizeType ArrayMax = 0;

    void Grow(SizeType NewMax) {
        StandIn::Allocations++;
        InElementType* NewData = new InElementType[NewMax];
        for (SizeType I = 0; I < ArrayNum; I++) NewData[I] = Data[I];
        delete[] Data;
        Data = NewData;
        ArrayMax = NewMax;
    }
};

// ------------------------------------------------------------- FString, FName
class FString {
public:
    FString() = default;
    FString(const TCHAR* Text) : Chars(Text ? Text : u"") {}
    explicit FString(const std::u16string& Text) : Chars(Text) {}
    const TCHAR* operator*() const { return Chars.c_str(); }
    bool IsEmpty() const { return Chars.empty(); }
    int32 Len() const { return static_cast<int32>(Chars.size()); }
    bool Equals(const FString& Other) const { return Chars == Other.Chars; }
    bool operator==(const FString& Other) const { return Chars == Other.Chars; }
    FString& operator+=(const FString& Other) {
        Chars += Other.Chars;
        return *this;
    }
    FString& operator/=(const FString& Other) {
        if (!Chars.empty() && Chars.back() != u'/') Chars += u'/';
        Chars += Other.Chars;
        return *this;
    }
    template <typename... Types>
    static FString Printf(const TCHAR* Format, Types... Args) {
        (void)sizeof...(Args);
        return FString(Format);
    }

    std::u16string Chars;
};

inline FString operator/(const FString& Lhs, const FString& Rhs) {
    FString Out = Lhs;
    Out /= Rhs;
    return Out;
}

namespace StandIn {
inline std::string Narrow(const TCHAR* Text) {
    std::string Out;
    for (; Text && *Text; Text++) Out += static_cast<char>(*Text);
    return Out;
}
inline std::u16string Widen(const char* Text) {
    std::u16string Out;
    for (; Text && *Text; Text++) Out += static_cast<char16_t>(static_cast<unsigned char>(*Text));
    return Out;
}
struct FTCHARToUTF8 {
    explicit FTCHARToUTF8(const TCHAR* Text) : Converted(Narrow(Text)) {}
    const char* Get() const { return Converted.c_str(); }
    int32 Length() const { return static_cast<int32>(Converted.size()); }
    std::string Converted;
};
struct FUTF8ToTCHAR {
    explicit FUTF8ToTCHAR(const char* Text) : Converted(Widen(Text)) {}
    const TCHAR* Get() const { return Converted.c_str(); }
    std::u16string Converted;
};
}  // namespace StandIn

typedef StandIn::FTCHARToUTF8 FTCHARToUTF8;
#define TCHAR_TO_UTF8(str) (const char*)FTCHARToUTF8((const TCHAR*)str).Get()
#define UTF8_TO_TCHAR(str) (const TCHAR*)StandIn::FUTF8ToTCHAR((const char*)str).Get()

enum EName { NAME_None = 0 };
class FName {
public:
    FName(EName = NAME_None) {}
    FName(const TCHAR* Name) : Text(Name) {}
    FString ToString() const { return Text; }

private:
    FString Text;
};

// ------------------------------------------------------------- Logging (UE_LOG)
enum class ELogVerbosityStandIn { Fatal, Error, Warning, Display, Log, Verbose, VeryVerbose };
namespace ELogVerbosity {
constexpr ELogVerbosityStandIn Fatal = ELogVerbosityStandIn::Fatal, Error = ELogVerbosityStandIn::Error,
                               Warning = ELogVerbosityStandIn::Warning, Display = ELogVerbosityStandIn::Display,
                               Log = ELogVerbosityStandIn::Log, Verbose = ELogVerbosityStandIn::Verbose,
                               VeryVerbose = ELogVerbosityStandIn::VeryVerbose, All = VeryVerbose;
}
namespace StandIn {
struct FLogCategory {
    const char* Name;
};
inline int Warnings = 0;  // UE_LOG calls at Warning or worse
template <typename... Types>
void Log(const FLogCategory& Category, ELogVerbosityStandIn Verbosity, const TCHAR* Format, Types... Args) {
    (void)sizeof...(Args);
    if (Verbosity <= ELogVerbosityStandIn::Warning) Warnings++;
    std::fprintf(stderr, "%s: %s\n", Category.Name, Narrow(Format).c_str());
}
}  // namespace StandIn
#define DECLARE_LOG_CATEGORY_EXTERN(CategoryName, DefaultVerbosity, CompileTimeVerbosity) \
    extern StandIn::FLogCategory CategoryName;
#define DEFINE_LOG_CATEGORY_STATIC(CategoryName, DefaultVerbosity, CompileTimeVerbosity) \
    static StandIn::FLogCategory CategoryName{#CategoryName};
inline StandIn::FLogCategory LogTemp{"LogTemp"};
#define UE_LOG(CategoryName, Verbosity, Format, ...) \
    StandIn::Log(CategoryName, ELogVerbosity::Verbosity, Format, ##__VA_ARGS__)

// ------------------------------------------------------------- Math: FVector (double), FQuat, FTransform
namespace UE {
namespace Math {

template <typename T>
struct TVector {
    T X = 0, Y = 0, Z = 0;
    static const TVector ZeroVector;
    static const TVector OneVector;
    static const TVector UpVector;
    static const TVector ForwardVector;
    static const TVector RightVector;

    TVector() = default;
    TVector(T InX, T InY, T InZ) : X(InX), Y(InY), Z(InZ) {}
    explicit TVector(T InF) : X(InF), Y(InF), Z(InF) {}
    TVector operator+(const TVector& V) const { return {X + V.X, Y + V.Y, Z + V.Z}; }
    TVector operator-(const TVector& V) const { return {X - V.X, Y - V.Y, Z - V.Z}; }
    TVector operator-() const { return {-X, -Y, -Z}; }
    TVector operator*(T Scale) const { return {X * Scale, Y * Scale, Z * Scale}; }
    TVector operator*(const TVector& V) const { return {X * V.X, Y * V.Y, Z * V.Z}; }
    TVector operator/(T Scale) const { return {X / Scale, Y / Scale, Z / Scale}; }
    TVector operator/(const TVector& V) const { return {X / V.X, Y / V.Y, Z / V.Z}; }
    TVector& operator+=(const TVector& V) { return *this = *this + V; }
    T operator|(const TVector& V) const { return X * V.X + Y * V.Y + Z * V.Z; }
    TVector operator^(const TVector& V) const {
        return {Y * V.Z - Z * V.Y, Z * V.X - X * V.Z, X * V.Y - Y * V.X};
    }
    static T DotProduct(const TVector& A, const TVector& B) { return A | B; }
    static TVector CrossProduct(const TVector& A, const TVector& B) { return A ^ B; }
    T Size() const { return std::sqrt(X * X + Y * Y + Z * Z); }
    T SizeSquared() const { return X * X + Y * Y + Z * Z; }
    TVector GetSafeNormal(T Tolerance = UE_SMALL_NUMBER) const {
        const T Square = SizeSquared();
        return Square > Tolerance ? *this / std::sqrt(Square) : ZeroVector;
    }
};
template <typename T> const TVector<T> TVector<T>::ZeroVector(0, 0, 0);
template <typename T> const TVector<T> TVector<T>::OneVector(1, 1, 1);
template <typename T> const TVector<T> TVector<T>::UpVector(0, 0, 1);
template <typename T> const TVector<T> TVector<T>::ForwardVector(1, 0, 0);
template <typename T> const TVector<T> TVector<T>::RightVector(0, 1, 0);

template <typename T>
struct TQuat {
    T X = 0, Y = 0, Z = 0, W = 1;
    static const TQuat Identity;
    TQuat() = default;
    TQuat(T InX, T InY, T InZ, T InW) : X(InX), Y(InY), Z(InZ), W(InW) {}
    TVector<T> RotateVector(const TVector<T>& V) const {
        const TVector<T> Q(X, Y, Z);
        const TVector<T> Tt = (Q ^ V) * T(2);
        return V + Tt * W + (Q ^ Tt);
    }
    TVector<T> UnrotateVector(const TVector<T>& V) const { return TQuat(-X, -Y, -Z, W).RotateVector(V); }
    TVector<T> GetForwardVector() const { return RotateVector(TVector<T>(1, 0, 0)); }
    TVector<T> GetRightVector() const { return RotateVector(TVector<T>(0, 1, 0)); }
    TVector<T> GetUpVector() const { return RotateVector(TVector<T>(0, 0, 1)); }
};
template <typename T> const TQuat<T> TQuat<T>::Identity(0, 0, 0, 1);

template <typename T>
struct TMatrix {
    T M[4][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};
    /** Rows are the axes (UE's row-vector convention). */
    TQuat<T> ToQuat() const {
        const T Trace = M[0][0] + M[1][1] + M[2][2];
        TQuat<T> Q;
        if (Trace > 0) {
            const T S = std::sqrt(Trace + 1) * 2;
            Q.W = S / 4;
            Q.X = (M[1][2] - M[2][1]) / S;
            Q.Y = (M[2][0] - M[0][2]) / S;
            Q.Z = (M[0][1] - M[1][0]) / S;
        } else if (M[0][0] > M[1][1] && M[0][0] > M[2][2]) {
            const T S = std::sqrt(1 + M[0][0] - M[1][1] - M[2][2]) * 2;
            Q.W = (M[1][2] - M[2][1]) / S;
            Q.X = S / 4;
            Q.Y = (M[1][0] + M[0][1]) / S;
            Q.Z = (M[2][0] + M[0][2]) / S;
        } else if (M[1][1] > M[2][2]) {
            const T S = std::sqrt(1 + M[1][1] - M[0][0] - M[2][2]) * 2;
            Q.W = (M[2][0] - M[0][2]) / S;
            Q.X = (M[1][0] + M[0][1]) / S;
            Q.Y = S / 4;
            Q.Z = (M[2][1] + M[1][2]) / S;
        } else {
            const T S = std::sqrt(1 + M[2][2] - M[0][0] - M[1][1]) * 2;
            Q.W = (M[0][1] - M[1][0]) / S;
            Q.X = (M[2][0] + M[0][2]) / S;
            Q.Y = (M[2][1] + M[1][2]) / S;
            Q.Z = S / 4;
        }
        return Q;
    }
};

template <typename T>
struct TRotationMatrix : TMatrix<T> {
    /** X kept, Z changed minimally to be orthogonal to it (UE: RotationMatrix.h). */
    static TMatrix<T> MakeFromXZ(const TVector<T>& XAxis, const TVector<T>& ZAxis) {
        const TVector<T> NewX = XAxis.GetSafeNormal();
        TVector<T> Norm = ZAxis.GetSafeNormal();
        if (std::fabs(std::fabs(NewX | Norm) - 1) < UE_KINDA_SMALL_NUMBER)
            Norm = std::fabs(NewX.Z) < (1 - UE_KINDA_SMALL_NUMBER) ? TVector<T>(0, 0, 1) : TVector<T>(1, 0, 0);
        const TVector<T> NewY = (Norm ^ NewX).GetSafeNormal();
        const TVector<T> NewZ = NewX ^ NewY;
        TMatrix<T> R;
        const TVector<T> Axes[3] = {NewX, NewY, NewZ};
        for (int A = 0; A < 3; A++) {
            R.M[A][0] = Axes[A].X;
            R.M[A][1] = Axes[A].Y;
            R.M[A][2] = Axes[A].Z;
        }
        return R;
    }
    static TMatrix<T> MakeFromX(const TVector<T>& XAxis) { return MakeFromXZ(XAxis, TVector<T>(0, 0, 1)); }
};

template <typename T>
struct TRotator {
    T Pitch = 0, Yaw = 0, Roll = 0;
    TRotator() = default;
    TRotator(T InPitch, T InYaw, T InRoll) : Pitch(InPitch), Yaw(InYaw), Roll(InRoll) {}
};

template <typename T>
struct TTransform {
    static const TTransform Identity;
    TTransform() = default;
    explicit TTransform(const TVector<T>& InTranslation) : Translation(InTranslation) {}
    TTransform(const TQuat<T>& InRotation, const TVector<T>& InTranslation,
               const TVector<T>& InScale3D = TVector<T>::OneVector)
        : Rotation(InRotation), Translation(InTranslation), Scale3D(InScale3D) {}
    TVector<T> TransformPosition(const TVector<T>& V) const { return Rotation.RotateVector(V * Scale3D) + Translation; }
    TVector<T> TransformVector(const TVector<T>& V) const { return Rotation.RotateVector(V * Scale3D); }
    TVector<T> TransformVectorNoScale(const TVector<T>& V) const { return Rotation.RotateVector(V); }
    TVector<T> InverseTransformPosition(const TVector<T>& V) const {
        return Rotation.UnrotateVector(V - Translation) / Scale3D;
    }
    TVector<T> InverseTransformVector(const TVector<T>& V) const { return Rotation.UnrotateVector(V) / Scale3D; }
    TVector<T> InverseTransformVectorNoScale(const TVector<T>& V) const { return Rotation.UnrotateVector(V); }
    TQuat<T> GetRotation() const { return Rotation; }
    TVector<T> GetLocation() const { return Translation; }
    TVector<T> GetTranslation() const { return Translation; }
    TVector<T> GetScale3D() const { return Scale3D; }

    TQuat<T> Rotation;
    TVector<T> Translation;
    TVector<T> Scale3D = TVector<T>::OneVector;
};
template <typename T> const TTransform<T> TTransform<T>::Identity;

}  // namespace Math
}  // namespace UE

using FVector = UE::Math::TVector<double>;  // UE 5: large world coordinates, double
using FQuat = UE::Math::TQuat<double>;
using FMatrix = UE::Math::TMatrix<double>;
using FRotationMatrix = UE::Math::TRotationMatrix<double>;
using FRotator = UE::Math::TRotator<double>;
using FTransform = UE::Math::TTransform<double>;

struct FColor {
    uint8 B = 0, G = 0, R = 0, A = 255;  // UE's memory order on little-endian
    FColor() = default;
    FColor(uint8 InR, uint8 InG, uint8 InB, uint8 InA = 255) : B(InB), G(InG), R(InR), A(InA) {}
    static const FColor White, Black, Red, Green, Blue, Yellow, Cyan, Magenta, Orange, Purple, Silver, Emerald;
};
inline const FColor FColor::White(255, 255, 255), FColor::Black(0, 0, 0), FColor::Red(255, 0, 0),
    FColor::Green(0, 255, 0), FColor::Blue(0, 0, 255), FColor::Yellow(255, 255, 0), FColor::Cyan(0, 255, 255),
    FColor::Magenta(255, 0, 255), FColor::Orange(243, 156, 18), FColor::Purple(169, 7, 228),
    FColor::Silver(189, 195, 199), FColor::Emerald(46, 204, 113);

struct FMath {
    template <typename T>
    static T Clamp(T X, T Min, T Max) {
        return X < Min ? Min : X < Max ? X : Max;
    }
};

// ------------------------------------------------------------- UObject
class UClass;
class UScriptStruct;
class UWorld;
class AActor;

class UObject {
public:
    virtual ~UObject() = default;
    virtual UWorld* GetWorld() const { return Outer ? Outer->GetWorld() : nullptr; }
    UObject* GetOuter() const { return Outer; }
    UObject* Outer = nullptr;
};

namespace StandIn {
template <typename T>
struct IsObject : std::is_base_of<UObject, T> {};
}  // namespace StandIn

template <typename T>
class TObjectPtr {
public:
    TObjectPtr(T* InObject = nullptr) : Object(InObject) {}
    T* Get() const { return Object; }
    operator T*() const { return Object; }
    T* operator->() const { return Object; }
    explicit operator bool() const { return Object != nullptr; }

private:
    T* Object;
};

enum EObjectFlags { RF_NoFlags = 0, RF_Transient = 0x40 };

template <class T>
T* NewObject(UObject* Outer, FName Name = NAME_None, EObjectFlags Flags = RF_NoFlags, UObject* Template = nullptr,
             bool bCopyTransientsFromClassDefaults = false, void* InInstanceGraph = nullptr) {
    (void)Name;
    (void)Flags;
    (void)Template;
    (void)bCopyTransientsFromClassDefaults;
    (void)InInstanceGraph;
    T* Object = new T();
    Object->Outer = Outer;
    return Object;
}

struct FFilePath {
    FString FilePath;
};

struct FDirectoryPath {
    FString Path;
};

#if WITH_EDITOR
class FProperty {
public:
    FName GetFName() const { return Name; }
    FName Name;
};
struct FPropertyChangedEvent {
    FProperty* Property = nullptr;
    FProperty* MemberProperty = nullptr;
    FName GetPropertyName() const { return Property ? Property->GetFName() : FName(); }
    FName GetMemberPropertyName() const { return MemberProperty ? MemberProperty->GetFName() : FName(); }
};
#endif
