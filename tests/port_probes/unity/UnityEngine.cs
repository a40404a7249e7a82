// UnityEngine.cs: a stand-in for the parts of Unity's engine assembly that the C# port's adapter
// (adapter/WanderFlock.cs), its README's scripts and a typical user script use, declared with
// the signatures of Unity's scripting reference (2022.3 LTS and Unity 6): UnityEngine,
// UnityEngine.Rendering, UnityEngine.Events and UnityEngine.SceneManagement. The tests compile
// the adapter and those scripts against it (mcs -langversion:7.2 -target:library), so a name
// that clashes with Unity's (CS0104) or a call Unity does not have fails there, as it would in
// a Unity project.
//
// It also behaves, enough to run the adapter's logic headless: transforms, quaternions and
// matrices compute what Unity's do; what Unity would draw or log is recorded in
// StandIn.Recorded, and StandIn.Recorded.Call runs a component's messages (Awake, Update,
// OnValidate...) as Unity does, by name.
//
// One signature differs: Unity constrains Graphics.RenderMeshInstanced<T>'s T to `unmanaged`
// (C# 7.3), which mcs does not know; here it is `struct`. A Matrix4x4[] satisfies both.

using System;
using System.Collections.Generic;
using System.Reflection;

namespace UnityEngine
{
    public class Object
    {
        public string name { get; set; }

        public static implicit operator bool(Object exists)
        {
            return !ReferenceEquals(exists, null);
        }

        public static T Instantiate<T>(T original) where T : Object
        {
            return Instantiate(original, null);
        }

        public static T Instantiate<T>(T original, Transform parent) where T : Object
        {
            var transform = original as Transform;
            if (transform == null)
                throw new NotSupportedException("the stand-in instantiates transforms only");
            var copy = new GameObject(transform.gameObject.name + "(Clone)").transform;
            copy.localScale = transform.localScale;
            copy.SetParent(parent, false);
            return (T)(Object)copy;
        }

        public static void Destroy(Object obj) { }

        public override string ToString()
        {
            return name + " (" + GetType().FullName + ")";
        }
    }

    public class Component : Object
    {
        public GameObject gameObject { get; internal set; }

        public Transform transform
        {
            get { return gameObject.transform; }
        }
    }

    public class Behaviour : Component
    {
        public bool enabled { get; set; } = true;
    }

    public class MonoBehaviour : Behaviour { }

    public sealed class GameObject : Object
    {
        readonly List<Component> components = new List<Component>();

        public GameObject()
            : this("New Game Object") { }

        public GameObject(string name)
        {
            this.name = name;
            transform = new Transform();
            transform.gameObject = this;
            components.Add(transform);
        }

        public Transform transform { get; private set; }

        public T AddComponent<T>() where T : Component
        {
            var component = (T)Activator.CreateInstance(typeof(T), true);
            component.gameObject = this;
            component.name = name;
            components.Add(component);
            return component;
        }

        public T GetComponent<T>()
        {
            foreach (Component c in components)
                if (c is T)
                    return (T)(object)c;
            return default(T);
        }
    }

    public class Transform : Component
    {
        readonly List<Transform> children = new List<Transform>();

        internal Transform() { }

        public Vector3 localPosition { get; set; }
        public Quaternion localRotation { get; set; } = Quaternion.identity;
        public Vector3 localScale { get; set; } = Vector3.one;
        public Transform parent { get; private set; }

        public int childCount
        {
            get { return children.Count; }
        }

        public Transform GetChild(int index)
        {
            return children[index];
        }

        public void SetParent(Transform p)
        {
            SetParent(p, true);
        }

        public void SetParent(Transform parent, bool worldPositionStays)
        {
            if (this.parent != null)
                this.parent.children.Remove(this);
            this.parent = parent;
            if (parent != null)
                parent.children.Add(this);
        }

        public Matrix4x4 localToWorldMatrix
        {
            get
            {
                Matrix4x4 local = Matrix4x4.TRS(localPosition, localRotation, localScale);
                return parent == null ? local : parent.localToWorldMatrix * local;
            }
        }

        public Vector3 position
        {
            get { return localToWorldMatrix.MultiplyPoint3x4(Vector3.zero); }
            set { localPosition = parent == null ? value : Unparented(value); }
        }

        public Quaternion rotation
        {
            get { return parent == null ? localRotation : parent.rotation * localRotation; }
            set { localRotation = parent == null ? value : Unparented(value); }
        }

        public Vector3 forward
        {
            get { return rotation * Vector3.forward; }
        }

        public void SetPositionAndRotation(Vector3 position, Quaternion rotation)
        {
            this.position = position;
            this.rotation = rotation;
        }

        static T Unparented<T>(T value)
        {
            throw new NotSupportedException("the stand-in sets world positions and rotations of root transforms only");
        }

        public Vector3 TransformPoint(Vector3 position)
        {
            return localToWorldMatrix.MultiplyPoint3x4(position);
        }
    }

    public struct Vector3
    {
        public float x;
        public float y;
        public float z;

        public Vector3(float x, float y, float z)
        {
            this.x = x;
            this.y = y;
            this.z = z;
        }

        public static Vector3 zero
        {
            get { return new Vector3(0f, 0f, 0f); }
        }

        public static Vector3 one
        {
            get { return new Vector3(1f, 1f, 1f); }
        }

        public static Vector3 up
        {
            get { return new Vector3(0f, 1f, 0f); }
        }

        public static Vector3 forward
        {
            get { return new Vector3(0f, 0f, 1f); }
        }

        public static Vector3 right
        {
            get { return new Vector3(1f, 0f, 0f); }
        }

        public float sqrMagnitude
        {
            get { return x * x + y * y + z * z; }
        }

        public float magnitude
        {
            get { return (float)Math.Sqrt(x * x + y * y + z * z); }
        }

        public Vector3 normalized
        {
            get
            {
                float m = magnitude;
                return m > 1e-5f ? this / m : zero;
            }
        }

        public static Vector3 Cross(Vector3 lhs, Vector3 rhs)
        {
            return new Vector3(lhs.y * rhs.z - lhs.z * rhs.y, lhs.z * rhs.x - lhs.x * rhs.z, lhs.x * rhs.y - lhs.y * rhs.x);
        }

        public static float Dot(Vector3 lhs, Vector3 rhs)
        {
            return lhs.x * rhs.x + lhs.y * rhs.y + lhs.z * rhs.z;
        }

        public static float Distance(Vector3 a, Vector3 b)
        {
            return (a - b).magnitude;
        }

        public static Vector3 operator +(Vector3 a, Vector3 b)
        {
            return new Vector3(a.x + b.x, a.y + b.y, a.z + b.z);
        }

        public static Vector3 operator -(Vector3 a, Vector3 b)
        {
            return new Vector3(a.x - b.x, a.y - b.y, a.z - b.z);
        }

        public static Vector3 operator -(Vector3 a)
        {
            return new Vector3(-a.x, -a.y, -a.z);
        }

        public static Vector3 operator *(Vector3 a, float d)
        {
            return new Vector3(a.x * d, a.y * d, a.z * d);
        }

        public static Vector3 operator *(float d, Vector3 a)
        {
            return new Vector3(a.x * d, a.y * d, a.z * d);
        }

        public static Vector3 operator /(Vector3 a, float d)
        {
            return new Vector3(a.x / d, a.y / d, a.z / d);
        }

        public override string ToString()
        {
            return "(" + x + ", " + y + ", " + z + ")";
        }
    }

    public struct Vector4
    {
        public float x;
        public float y;
        public float z;
        public float w;

        public Vector4(float x, float y, float z, float w)
        {
            this.x = x;
            this.y = y;
            this.z = z;
            this.w = w;
        }
    }

    public struct Quaternion
    {
        public float x;
        public float y;
        public float z;
        public float w;

        public Quaternion(float x, float y, float z, float w)
        {
            this.x = x;
            this.y = y;
            this.z = z;
            this.w = w;
        }

        public static Quaternion identity
        {
            get { return new Quaternion(0f, 0f, 0f, 1f); }
        }

        public static Quaternion LookRotation(Vector3 forward)
        {
            return LookRotation(forward, Vector3.up);
        }

        /// <summary>The rotation whose +z is forward and whose +y is as close to upwards as
        /// forward allows (Unity's; a zero forward logs and gives the identity).</summary>
        public static Quaternion LookRotation(Vector3 forward, Vector3 upwards)
        {
            Vector3 f = forward.normalized;
            if (f.sqrMagnitude == 0f)
            {
                Debug.Log("Look rotation viewing vector is zero");
                return identity;
            }
            Vector3 r = Vector3.Cross(upwards, f);
            if (r.sqrMagnitude < 1e-12f)
                r = Vector3.Cross(Math.Abs(f.x) < 0.9f ? Vector3.right : Vector3.forward, f);
            r = r.normalized;
            Vector3 u = Vector3.Cross(f, r);
            // The rotation matrix's columns are r, u, f (Shepperd's method).
            float trace = r.x + u.y + f.z;
            if (trace > 0f)
            {
                float s = (float)Math.Sqrt(trace + 1f) * 2f;
                return new Quaternion((u.z - f.y) / s, (f.x - r.z) / s, (r.y - u.x) / s, 0.25f * s);
            }
            if (r.x > u.y && r.x > f.z)
            {
                float s = (float)Math.Sqrt(1f + r.x - u.y - f.z) * 2f;
                return new Quaternion(0.25f * s, (u.x + r.y) / s, (f.x + r.z) / s, (u.z - f.y) / s);
            }
            if (u.y > f.z)
            {
                float s = (float)Math.Sqrt(1f + u.y - r.x - f.z) * 2f;
                return new Quaternion((u.x + r.y) / s, 0.25f * s, (f.y + u.z) / s, (f.x - r.z) / s);
            }
            float t = (float)Math.Sqrt(1f + f.z - r.x - u.y) * 2f;
            return new Quaternion((f.x + r.z) / t, (f.y + u.z) / t, 0.25f * t, (r.y - u.x) / t);
        }

        public static Quaternion operator *(Quaternion lhs, Quaternion rhs)
        {
            return new Quaternion(
                lhs.w * rhs.x + lhs.x * rhs.w + lhs.y * rhs.z - lhs.z * rhs.y,
                lhs.w * rhs.y + lhs.y * rhs.w + lhs.z * rhs.x - lhs.x * rhs.z,
                lhs.w * rhs.z + lhs.z * rhs.w + lhs.x * rhs.y - lhs.y * rhs.x,
                lhs.w * rhs.w - lhs.x * rhs.x - lhs.y * rhs.y - lhs.z * rhs.z
            );
        }

        public static Vector3 operator *(Quaternion rotation, Vector3 point)
        {
            return Matrix4x4.TRS(Vector3.zero, rotation, Vector3.one).MultiplyPoint3x4(point);
        }
    }

    public struct Matrix4x4
    {
        public float m00, m01, m02, m03;
        public float m10, m11, m12, m13;
        public float m20, m21, m22, m23;
        public float m30, m31, m32, m33;

        public static Matrix4x4 identity
        {
            get { return new Matrix4x4 { m00 = 1f, m11 = 1f, m22 = 1f, m33 = 1f }; }
        }

        public static Matrix4x4 TRS(Vector3 pos, Quaternion q, Vector3 s)
        {
            float x = q.x * 2f, y = q.y * 2f, z = q.z * 2f;
            float xx = q.x * x, yy = q.y * y, zz = q.z * z;
            float xy = q.x * y, xz = q.x * z, yz = q.y * z;
            float wx = q.w * x, wy = q.w * y, wz = q.w * z;
            return new Matrix4x4
            {
                m00 = (1f - (yy + zz)) * s.x,
                m01 = (xy - wz) * s.y,
                m02 = (xz + wy) * s.z,
                m03 = pos.x,
                m10 = (xy + wz) * s.x,
                m11 = (1f - (xx + zz)) * s.y,
                m12 = (yz - wx) * s.z,
                m13 = pos.y,
                m20 = (xz - wy) * s.x,
                m21 = (yz + wx) * s.y,
                m22 = (1f - (xx + yy)) * s.z,
                m23 = pos.z,
                m33 = 1f,
            };
        }

        public float this[int row, int column]
        {
            get
            {
                switch (row * 4 + column)
                {
                    case 0: return m00;
                    case 1: return m01;
                    case 2: return m02;
                    case 3: return m03;
                    case 4: return m10;
                    case 5: return m11;
                    case 6: return m12;
                    case 7: return m13;
                    case 8: return m20;
                    case 9: return m21;
                    case 10: return m22;
                    case 11: return m23;
                    case 12: return m30;
                    case 13: return m31;
                    case 14: return m32;
                    default: return m33;
                }
            }
        }

        public Vector4 GetColumn(int index)
        {
            return new Vector4(this[0, index], this[1, index], this[2, index], this[3, index]);
        }

        public Vector3 MultiplyPoint3x4(Vector3 point)
        {
            return new Vector3(
                m00 * point.x + m01 * point.y + m02 * point.z + m03,
                m10 * point.x + m11 * point.y + m12 * point.z + m13,
                m20 * point.x + m21 * point.y + m22 * point.z + m23
            );
        }

        public static Matrix4x4 operator *(Matrix4x4 lhs, Matrix4x4 rhs)
        {
            var m = new float[16];
            for (int r = 0; r < 4; r++)
                for (int c = 0; c < 4; c++)
                    m[4 * r + c] = lhs[r, 0] * rhs[0, c] + lhs[r, 1] * rhs[1, c] + lhs[r, 2] * rhs[2, c] + lhs[r, 3] * rhs[3, c];
            return new Matrix4x4
            {
                m00 = m[0], m01 = m[1], m02 = m[2], m03 = m[3],
                m10 = m[4], m11 = m[5], m12 = m[6], m13 = m[7],
                m20 = m[8], m21 = m[9], m22 = m[10], m23 = m[11],
                m30 = m[12], m31 = m[13], m32 = m[14], m33 = m[15],
            };
        }
    }

    public struct Bounds
    {
        public Bounds(Vector3 center, Vector3 size)
        {
            this.center = center;
            this.size = size;
        }

        public Vector3 center { get; set; }
        public Vector3 size { get; set; }
    }

    public struct Color
    {
        public float r;
        public float g;
        public float b;
        public float a;

        public Color(float r, float g, float b, float a)
        {
            this.r = r;
            this.g = g;
            this.b = b;
            this.a = a;
        }

        public Color(float r, float g, float b)
            : this(r, g, b, 1f) { }

        public static Color cyan
        {
            get { return new Color(0f, 1f, 1f, 1f); }
        }

        public static Color yellow
        {
            get { return new Color(1f, 0.92156863f, 0.015686275f, 1f); }
        }

        public static Color gray
        {
            get { return new Color(0.5f, 0.5f, 0.5f, 1f); }
        }

        public static Color white
        {
            get { return new Color(1f, 1f, 1f, 1f); }
        }
    }

    public sealed class Mesh : Object { }

    public sealed class Shader : Object
    {
        public static Shader Find(string name)
        {
            return new Shader { name = name };
        }
    }

    public class Material : Object
    {
        public Material(Shader shader)
        {
            this.shader = shader;
        }

        public Material(Material source)
        {
            shader = source.shader;
            enableInstancing = source.enableInstancing;
        }

        public Shader shader { get; set; }
        public bool enableInstancing { get; set; }
    }

    public class TextAsset : Object
    {
        public TextAsset()
            : this(null) { }

        public TextAsset(string text)
        {
            this.text = text;
        }

        public string text { get; private set; }
    }

    public struct RenderParams
    {
        public RenderParams(Material mat)
            : this()
        {
            material = mat;
            worldBounds = new Bounds(Vector3.zero, Vector3.zero);
        }

        public int layer { get; set; }
        public Bounds worldBounds { get; set; }
        public Material material { get; set; }
        public UnityEngine.Rendering.ShadowCastingMode shadowCastingMode { get; set; }
        public bool receiveShadows { get; set; }
    }

    public sealed class Graphics
    {
        public static void RenderMeshInstanced<T>(in RenderParams rparams, Mesh mesh, int submeshIndex, T[] instanceData, int instanceCount = -1, int startInstance = 0)
            where T : struct
        {
            // As Unity's: these throw; the count is at most what the array holds from startInstance.
            if (!rparams.material.enableInstancing)
                throw new InvalidOperationException("Material needs to enable instancing for use with RenderMeshInstanced.");
            if (instanceData == null)
                throw new ArgumentNullException("instanceData");
            int count = (int)Math.Min((uint)instanceCount, (uint)Math.Max(0, instanceData.Length - startInstance));
            var batch = new T[count];
            Array.Copy(instanceData, startInstance, batch, 0, count);
            StandIn.Recorded.Draws.Add(new StandIn.InstancedDraw { Params = rparams, Mesh = mesh, Instances = batch });
        }
    }

    public sealed class Gizmos
    {
        public static Color color { get; set; }
        public static Matrix4x4 matrix { get; set; } = Matrix4x4.identity;

        static void Record(string shape, Vector3 at, string size)
        {
            Vector3 world = matrix.MultiplyPoint3x4(at);
            StandIn.Recorded.Gizmos.Add(shape + " " + world.x + " " + world.y + " " + world.z + " " + size);
        }

        public static void DrawLine(Vector3 from, Vector3 to)
        {
            Record("line", from, "");
        }

        public static void DrawWireSphere(Vector3 center, float radius)
        {
            Record("wiresphere", center, radius.ToString("R"));
        }

        public static void DrawSphere(Vector3 center, float radius)
        {
            Record("sphere", center, radius.ToString("R"));
        }

        public static void DrawWireCube(Vector3 center, Vector3 size)
        {
            Record("wirecube", center, size.x.ToString("R") + " " + size.y.ToString("R") + " " + size.z.ToString("R"));
        }
    }

    public sealed class Debug
    {
        public static void Log(object message)
        {
            StandIn.Recorded.Logs.Add(Convert.ToString(message));
        }

        public static void Log(object message, Object context)
        {
            Log(message);
        }

        public static void LogWarning(object message)
        {
            StandIn.Recorded.Warnings.Add(Convert.ToString(message));
        }

        public static void LogWarning(object message, Object context)
        {
            LogWarning(message);
        }

        public static void LogError(object message)
        {
            StandIn.Recorded.Errors.Add(Convert.ToString(message));
        }

        public static void LogError(object message, Object context)
        {
            LogError(message);
        }
    }

    public class Time
    {
        public static float time { get; internal set; }

        public static float deltaTime
        {
            get { return StandIn.Recorded.DeltaTime; }
        }

        public static float fixedDeltaTime { get; set; } = 0.02f;
    }

    public class Application
    {
        public static bool isPlaying
        {
            get { return StandIn.Recorded.Playing; }
        }
    }

    public sealed class Random
    {
        static readonly System.Random generator = new System.Random(1);

        public static float value
        {
            get { return (float)generator.NextDouble(); }
        }

        public static float Range(float minInclusive, float maxInclusive)
        {
            return minInclusive + (maxInclusive - minInclusive) * value;
        }

        public static int Range(int minInclusive, int maxExclusive)
        {
            return generator.Next(minInclusive, maxExclusive);
        }
    }

    public struct Mathf
    {
        public const float PI = (float)Math.PI;

        public static float Sin(float f)
        {
            return (float)Math.Sin(f);
        }

        public static float Clamp(float value, float min, float max)
        {
            return value < min ? min : value > max ? max : value;
        }
    }

    [AttributeUsage(AttributeTargets.Field, Inherited = true, AllowMultiple = false)]
    public abstract class PropertyAttribute : Attribute { }

    [AttributeUsage(AttributeTargets.Field, Inherited = true, AllowMultiple = false)]
    public class TooltipAttribute : PropertyAttribute
    {
        public readonly string tooltip;

        public TooltipAttribute(string tooltip)
        {
            this.tooltip = tooltip;
        }
    }

    [AttributeUsage(AttributeTargets.Field, Inherited = true, AllowMultiple = true)]
    public class HeaderAttribute : PropertyAttribute
    {
        public readonly string header;

        public HeaderAttribute(string header)
        {
            this.header = header;
        }
    }

    [AttributeUsage(AttributeTargets.Field, Inherited = true, AllowMultiple = false)]
    public sealed class RangeAttribute : PropertyAttribute
    {
        public readonly float min;
        public readonly float max;

        public RangeAttribute(float min, float max)
        {
            this.min = min;
            this.max = max;
        }
    }

    [AttributeUsage(AttributeTargets.Field, Inherited = true, AllowMultiple = false)]
    public sealed class MinAttribute : PropertyAttribute
    {
        public readonly float min;

        public MinAttribute(float min)
        {
            this.min = min;
        }
    }

    [AttributeUsage(AttributeTargets.Field, Inherited = true)]
    public sealed class SerializeField : Attribute { }

    [AttributeUsage(AttributeTargets.Class, Inherited = true, AllowMultiple = false)]
    public sealed class AddComponentMenu : Attribute
    {
        public AddComponentMenu(string menuName) { }

        public AddComponentMenu(string menuName, int order) { }
    }
}

namespace UnityEngine.Rendering
{
    public enum ShadowCastingMode
    {
        Off = 0,
        On = 1,
        TwoSided = 2,
        ShadowsOnly = 3,
    }
}

namespace UnityEngine.Events
{
    public delegate void UnityAction();

    public delegate void UnityAction<T0>(T0 arg0);

    public delegate void UnityAction<T0, T1>(T0 arg0, T1 arg1);
}

namespace UnityEngine.SceneManagement
{
    public enum LoadSceneMode
    {
        Single = 0,
        Additive = 1,
    }

    public struct Scene
    {
        public string name
        {
            get { return "SampleScene"; }
        }

        public string path
        {
            get { return "Assets/Scenes/SampleScene.unity"; }
        }

        public int buildIndex
        {
            get { return 0; }
        }

        public bool isLoaded
        {
            get { return true; }
        }

        public bool IsValid()
        {
            return true;
        }
    }

    public class SceneManager
    {
        public static event UnityEngine.Events.UnityAction<Scene, LoadSceneMode> sceneLoaded;

        public static int sceneCount
        {
            get { return 1; }
        }

        public static Scene GetActiveScene()
        {
            return new Scene();
        }

        public static void LoadScene(string sceneName)
        {
            LoadScene(sceneName, LoadSceneMode.Single);
        }

        public static void LoadScene(string sceneName, LoadSceneMode mode)
        {
            if (sceneLoaded != null)
                sceneLoaded(new Scene(), mode);
        }

        public static void LoadScene(int sceneBuildIndex)
        {
            LoadScene(sceneBuildIndex, LoadSceneMode.Single);
        }

        public static void LoadScene(int sceneBuildIndex, LoadSceneMode mode)
        {
            if (sceneLoaded != null)
                sceneLoaded(new Scene(), mode);
        }
    }
}

namespace StandIn
{
    using UnityEngine;

    /// <summary>One Graphics.RenderMeshInstanced call: its parameters and its instances.</summary>
    public struct InstancedDraw
    {
        public RenderParams Params;
        public Mesh Mesh;
        public Array Instances;
    }

    /// <summary>What the stand-in engine was asked to do, and the knobs Unity would turn.</summary>
    public static class Recorded
    {
        public static readonly List<string> Logs = new List<string>();
        public static readonly List<string> Warnings = new List<string>();
        public static readonly List<string> Errors = new List<string>();
        public static readonly List<string> Gizmos = new List<string>();
        public static readonly List<InstancedDraw> Draws = new List<InstancedDraw>();
        public static float DeltaTime = 1f / 60f;
        public static bool Playing;

        public static void Clear()
        {
            Logs.Clear();
            Warnings.Clear();
            Errors.Clear();
            Gizmos.Clear();
            Draws.Clear();
        }

        /// <summary>Send message (Awake, Update, OnValidate...) to a component, as Unity does:
        /// a method of that name, public or not, without arguments.</summary>
        public static void Call(object component, string message)
        {
            MethodInfo method = component.GetType().GetMethod(message, BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic);
            if (method == null)
                throw new MissingMethodException(component.GetType().Name, message);
            method.Invoke(component, null);
        }

        /// <summary>Set a serialised field, as loading a scene does.</summary>
        public static void Set(object target, string field, object value)
        {
            FieldInfo info = target.GetType().GetField(field, BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic);
            if (info == null)
                throw new MissingFieldException(target.GetType().Name, field);
            info.SetValue(target, value);
        }

        public static object Get(object target, string field)
        {
            FieldInfo info = target.GetType().GetField(field, BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic);
            if (info == null)
                throw new MissingFieldException(target.GetType().Name, field);
            return info.GetValue(target);
        }
    }
}
