// SPDX-FileCopyrightText: 2026 The wander3d authors
// SPDX-License-Identifier: MIT
// WanderFlock.cs: a Unity component that hosts a wander3d flock (Wander.cs). Add it to an empty
// GameObject: each group's parameters show in the Inspector, with wander3d check's words as
// tooltips, and act at once while playing; the agents are drawn instanced
// (Graphics.RenderMeshInstanced, thousands, no GameObjects) or as one GameObject each (a
// prefab: colliders, scripts, animation); selected, it draws the box, each wander sphere and
// each target with Gizmos. For your own characters, use the composable call instead (README.md:
// "Compose it with your own steering").
//
// Frames: wander3d is right-handed with +y up, Unity left-handed with +y up. A wander3d point
// or direction (x, y, z) is Unity's (x, y, -z), in this GameObject's space, times Units. Only
// this file converts: the core runs in wander3d's frame, so its run stays wander3d's bit for bit.

using System;
using UnityEngine;
using UnityEngine.Rendering;
using Wander3d;

/// <summary>How WanderFlock draws its agents.</summary>
public enum WanderDrawing
{
    /// <summary>Graphics.RenderMeshInstanced, up to 1023 agents a call: many agents, no
    /// GameObjects (the group's material needs GPU instancing enabled).</summary>
    Instanced = 0,

    /// <summary>One GameObject per agent, from the group's prefab: colliders, scripts,
    /// animation, for a few hundred agents.</summary>
    Objects = 1,
}

/// <summary>One group's parameters as the Inspector shows them, in the scene file's words.
/// While playing, an edit acts from the next step (a method change continues each agent from
/// where its target is); Count acts when play starts.</summary>
[Serializable]
public sealed class WanderGroupSettings
{
    [Tooltip("The group's name in wander3d's scene.")]
    public string Name;

    [Tooltip("Number of agents in the group. [agents] A change acts when play starts.")]
    [Min(0f)]
    public int Count;

    [Header("Wander")]
    [Tooltip("sphere: Reynolds' 3D displacement on a sphere; angle: the 2D tutorials' angle jitter in 3D; noise: smooth coherent noise; seek: seek random points of the box; random: a fresh random force every 1/30 s (twitchy baseline).")]
    public WanderMethod Method;

    [Tooltip("force: the vector to the target is the steering force (Reynolds); desired: a desired velocity towards the target at max_speed, steering = desired - velocity.")]
    public Steering Steering;

    [Tooltip("How far ahead of the agent the wander sphere's centre sits. [units]")]
    [Range(0f, 120f)]
    public double Distance;

    [Tooltip("Radius of the wander sphere; with `distance` it sets how hard an agent can turn. [units]")]
    [Range(0.1f, 60f)]
    public double Radius;

    [Tooltip("Size of the random displacement added to the target; the target's direction decorrelates (to 1/e) in 5·(radius/jitter)² s. [units/√s]")]
    [Range(0f, 60f)]
    public double Jitter;

    [Tooltip("How fast the target's two angles relative to the heading random-walk; its yaw decorrelates (to 1/e) in 6/rate² s, and its pitch reverts to level. [rad/√s]")]
    [Range(0f, 5f)]
    public double Rate;

    [Tooltip("How fast the noise driving the target changes; lower is lazier. [1/s]")]
    [Range(0.01f, 3f)]
    public double Frequency;

    [Tooltip("Seconds between picks of a new random point of the box to seek. [s]")]
    [Range(0.1f, 30f)]
    public double Interval;

    [Tooltip("Scales up/down motion: 1 turns equally in every direction, 0.2 swims like a fish, 0 stays level. It keeps its meaning however long a run lasts, and agents start as level as they will stay.")]
    [Range(0f, 1f)]
    public double Vertical;

    [Header("Vehicle")]
    [Tooltip("Speed limit. [units/s]")]
    [Range(0.5f, 300f)]
    public double MaxSpeed;

    [Tooltip("Limit on the total steering force; with `mass` it sets how fast agents can turn. [mass·units/s²]")]
    [Range(0.5f, 600f)]
    public double MaxForce;

    [Tooltip("Acceleration = force / mass: heavier agents turn more slowly.")]
    [Min(1e-6f)]
    public double Mass;

    [Tooltip("Starting speed along a random heading; 0 starts agents at rest. At most `max_speed`. [units/s]")]
    [Min(0f)]
    public double InitialSpeed;

    [Header("Drawing")]
    [Tooltip("Instanced drawing: the agents' mesh (+z forward, +y up).")]
    public Mesh Mesh;

    [Tooltip("Instanced drawing: the mesh's material, with Enable GPU Instancing ticked.")]
    public Material Material;

    [Tooltip("Object drawing: one instance per agent (+z forward, +y up).")]
    public Transform Prefab;

    /// <summary>The scene's groups, as wander3d tuned them.</summary>
    public static WanderGroupSettings[] Of(SceneSpec scene)
    {
        var settings = new WanderGroupSettings[scene.Groups.Length];
        for (int g = 0; g < settings.Length; g++)
        {
            WanderParams p = scene.Groups[g].Params;
            settings[g] = new WanderGroupSettings
            {
                Name = scene.Groups[g].Name,
                Count = scene.Groups[g].Count,
                Method = p.Method,
                Steering = p.Steering,
                Distance = p.Distance,
                Radius = p.Radius,
                Jitter = p.Jitter,
                Rate = p.Rate,
                Frequency = p.Frequency,
                Interval = p.Interval,
                Vertical = p.Vertical,
                MaxSpeed = p.MaxSpeed,
                MaxForce = p.MaxForce,
                Mass = p.Mass,
                InitialSpeed = p.InitialSpeed,
            };
        }
        return settings;
    }

    /// <summary>The numbers and the steering into p (the method apart: Flock.SetMethod
    /// switches it with care). ArgumentOutOfRangeException for a value outside its range.</summary>
    public void CopyTo(WanderParams p)
    {
        p.Steering = Steering;
        p.Distance = Distance;
        p.Radius = Radius;
        p.Jitter = Jitter;
        p.Rate = Rate;
        p.Frequency = Frequency;
        p.Interval = Interval;
        p.Vertical = Vertical;
        p.MaxSpeed = MaxSpeed;
        p.MaxForce = MaxForce;
        p.Mass = Mass;
        p.InitialSpeed = InitialSpeed;
    }
}

/// <summary>A wander3d flock in a Unity scene: the scene block's groups in the Inspector, stepped
/// at the scene's fixed dt whatever the frame rate, drawn interpolated between steps.</summary>
[AddComponentMenu("wander3d/Wander Flock")]
public sealed class WanderFlock : MonoBehaviour
{
    /// <summary>Graphics.RenderMeshInstanced draws at most this many instances a call.</summary>
    public const int Batch = 1023;

    [Tooltip("Metres per wander3d unit: 0.1 makes the default 200-unit box 20 m wide.")]
    [Min(1e-6f)]
    [SerializeField]
    float units = 0.1f;

    [Tooltip("Optional: start.txt, wander3d's exact start of the scene (the same run as wander3d's). Without it, agents spawn from the seed.")]
    [SerializeField]
    TextAsset startState;

    [Tooltip("Instanced: many agents, no GameObjects (a mesh and an instancing material per group). Objects: one GameObject per agent (a prefab per group).")]
    [SerializeField]
    WanderDrawing drawing = WanderDrawing.Instanced;

    [Tooltip("Instanced drawing: each agent's scale.")]
    [SerializeField]
    Vector3 agentScale = Vector3.one;

    [Tooltip("Selected, draw the box, each agent's wander sphere and its target (Gizmos).")]
    [SerializeField]
    bool debugDraw = true;

    [SerializeField]
    WanderGroupSettings[] groups = WanderGroupSettings.Of(WanderScene.Create());

    /// <summary>The running flock (null before Awake): positions, agents, each group's
    /// Wander and Params.</summary>
    public Flock Flock { get; private set; }

    Transform[] agents; // object drawing: one per agent (null where a group has no prefab)
    Matrix4x4[][] matrices; // instanced drawing: per group, one per agent
    RenderParams[] renderParams; // instanced drawing: per group
    bool[] drawn; // instanced drawing: the group has a mesh and an instancing material
    double alpha; // how far the display time is between the last two steps

    /// <summary>A wander3d point or direction in this GameObject's space: z negated
    /// (right-handed to left-handed, both +y up), times scale.</summary>
    public static Vector3 ToUnity(Double3 v, double scale)
    {
        return new Vector3((float)(v.X * scale), (float)(v.Y * scale), (float)(-v.Z * scale));
    }

    /// <summary>Agent i's drawn position in this GameObject's space.</summary>
    public Vector3 AgentPosition(int i)
    {
        return ToUnity(Flock.PositionAt(i, alpha), units);
    }

    /// <summary>Agent i's rotation in this GameObject's space: +z along its heading, +y as
    /// near up as the heading allows.</summary>
    public Quaternion AgentRotation(int i)
    {
        Vector3 forward = ToUnity(Flock.Agents[i].Heading, 1.0);
        return forward.sqrMagnitude > 0f ? Quaternion.LookRotation(forward, Vector3.up) : Quaternion.identity;
    }

    void Reset()
    {
        groups = WanderGroupSettings.Of(WanderScene.Create());
    }

    void Awake()
    {
        SceneSpec scene = WanderScene.Create();
        if (groups == null || groups.Length != scene.Groups.Length)
        {
            Debug.LogWarning("WanderFlock: the groups do not match Wander.cs's scene; using the scene's.", this);
            groups = WanderGroupSettings.Of(scene);
        }
        for (int g = 0; g < groups.Length; g++)
        {
            try
            {
                scene.Groups[g].Count = Math.Max(0, groups[g].Count);
                groups[g].CopyTo(scene.Groups[g].Params);
                scene.Groups[g].Params.Method = groups[g].Method;
            }
            catch (ArgumentException e)
            {
                Debug.LogError("WanderFlock: group " + groups[g].Name + ": " + e.Message + "; the scene's values are used.", this);
                scene.Groups[g] = WanderScene.Create().Groups[g];
            }
        }
        Flock = MakeFlock(scene);
        PrepareDrawing();
    }

    /// <summary>From start.txt when there is one and it fits; a bad one is logged, not thrown,
    /// and the agents spawn from the seed instead.</summary>
    Flock MakeFlock(SceneSpec scene)
    {
        if (startState != null)
        {
            try
            {
                return new Flock(scene, startState.text);
            }
            catch (FormatException e)
            {
                Debug.LogError("WanderFlock: " + startState.name + " is not a start of this scene (" + e.Message + "); the agents spawn from the seed instead.", this);
            }
        }
        return new Flock(scene);
    }

    void PrepareDrawing()
    {
        int count = Flock.Groups.Length;
        agents = new Transform[Flock.Count];
        matrices = new Matrix4x4[count][];
        renderParams = new RenderParams[count];
        drawn = new bool[count];
        for (int g = 0; g < count; g++)
        {
            Group group = Flock.Groups[g];
            WanderGroupSettings look = groups[g];
            if (drawing == WanderDrawing.Objects)
            {
                if (look.Prefab == null)
                {
                    Debug.LogWarning("WanderFlock: group " + group.Name + " has no prefab: its agents are not drawn.", this);
                    continue;
                }
                for (int i = group.First; i < group.First + group.Count; i++)
                {
                    agents[i] = Instantiate(look.Prefab, transform);
                    agents[i].name = group.Name + " " + i;
                }
            }
            else if (look.Mesh == null || look.Material == null)
                Debug.LogWarning("WanderFlock: group " + group.Name + " has no mesh or material: its agents are not drawn.", this);
            else if (!look.Material.enableInstancing)
                Debug.LogError("WanderFlock: tick Enable GPU Instancing on " + look.Material.name + " (group " + group.Name + "): its agents are not drawn.", this);
            else
            {
                drawn[g] = true;
                matrices[g] = new Matrix4x4[group.Count];
                renderParams[g] = new RenderParams(look.Material) { shadowCastingMode = ShadowCastingMode.On, receiveShadows = true };
            }
        }
        if (drawing == WanderDrawing.Objects)
            Draw(); // in place from the start; instanced agents are drawn each Update
    }

    /// <summary>Inspector edits act while playing: the numbers from the next step, a method
    /// change through Flock.SetMethod (each target stays where it is).</summary>
    void OnValidate()
    {
        if (!Application.isPlaying || Flock == null || groups == null || groups.Length != Flock.Groups.Length)
            return;
        for (int g = 0; g < groups.Length; g++)
        {
            try
            {
                groups[g].CopyTo(Flock.Groups[g].Params);
                Flock.SetMethod(g, groups[g].Method);
            }
            catch (ArgumentException e)
            {
                Debug.LogWarning("WanderFlock: group " + groups[g].Name + ": " + e.Message, this);
            }
        }
    }

    void Update()
    {
        if (Flock == null)
            return;
        alpha = Flock.Update(Time.deltaTime);
        Draw();
    }

    void Draw()
    {
        if (drawing == WanderDrawing.Objects)
        {
            for (int i = 0; i < Flock.Count; i++)
                if (agents[i] != null)
                {
                    agents[i].localPosition = AgentPosition(i);
                    agents[i].localRotation = AgentRotation(i);
                }
            return;
        }
        Matrix4x4 world = transform.localToWorldMatrix;
        for (int g = 0; g < Flock.Groups.Length; g++)
        {
            if (!drawn[g])
                continue;
            Group group = Flock.Groups[g];
            Matrix4x4[] m = matrices[g];
            for (int k = 0; k < group.Count; k++)
                m[k] = world * Matrix4x4.TRS(AgentPosition(group.First + k), AgentRotation(group.First + k), agentScale);
            for (int start = 0; start < group.Count; start += Batch)
                Graphics.RenderMeshInstanced(renderParams[g], groups[g].Mesh, 0, m, Math.Min(Batch, group.Count - start), start);
        }
    }

    void OnDrawGizmosSelected()
    {
        if (!debugDraw)
            return;
        Gizmos.matrix = transform.localToWorldMatrix;
        WanderBox box = Flock != null ? Flock.Box : WanderScene.Create().Box;
        Double3 low = box.Min, high = box.Max;
        Gizmos.color = Color.gray;
        Gizmos.DrawWireCube(ToUnity((low + high) * 0.5, units), new Vector3((float)((high.X - low.X) * units), (float)((high.Y - low.Y) * units), (float)((high.Z - low.Z) * units)));
        if (Flock == null)
            return;
        for (int i = 0; i < Flock.Count; i++)
        {
            Double3 centre;
            double radius = Flock.WanderSphere(i, out centre);
            if (radius > 0.0)
            {
                Gizmos.color = Color.cyan;
                Gizmos.DrawWireSphere(ToUnity(centre, units), (float)(radius * units));
            }
            Vector3 target = ToUnity(Flock.TargetOf(i), units);
            Gizmos.color = Color.yellow;
            Gizmos.DrawSphere(target, 0.5f * units);
            Gizmos.DrawLine(ToUnity(Flock.Position[i], units), target);
        }
    }
}
