// AdapterProbe.cs: runs the Unity adapter (WanderFlock.cs) on the stand-in engine (UnityEngine.cs)
// as Unity would: a GameObject with the component, its serialised fields set as a scene
// loads them, then Awake, Update, OnValidate and OnDrawGizmosSelected called by name. Built by
// tests/test_port_csharp.py with a port's Wander.cs; it prints one "name value..." line per
// check, which the test reads:
//
//   mono adapter-probe.exe START   START: the port's start.txt
//   mono adapter-probe.exe names ASSEMBLY...   every exported type of the assemblies, then
//                                              the System namespace's ("type" / "system")

using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Reflection;
using System.Text;
using StandIn;
using UnityEngine;
using Wander3d;

static class AdapterProbe
{
    static readonly StringBuilder output = new StringBuilder();

    static void Say(string name, params object[] values)
    {
        output.Append(name);
        foreach (object v in values)
            output.Append(' ').Append(Convert.ToString(v, CultureInfo.InvariantCulture));
        output.Append('\n');
    }

    static int Main(string[] args)
    {
        if (args[0] == "names")
        {
            for (int a = 1; a < args.Length; a++)
                foreach (Type t in Assembly.LoadFrom(args[a]).GetExportedTypes())
                    Say("type", t.FullName);
            foreach (Type t in typeof(object).Assembly.GetExportedTypes())
                if (t.Namespace == "System")
                    Say("system", t.Name);
        }
        else
            Run(File.ReadAllText(args[0]));
        Console.Out.Write(output.ToString());
        return 0;
    }

    /// <summary>A flock component on a GameObject placed at (5, 2, -3), its fields set.</summary>
    static WanderFlock Component(string start, WanderDrawing drawing, bool instancing)
    {
        var holder = new GameObject("flock");
        holder.transform.localPosition = new Vector3(5f, 2f, -3f);
        WanderFlock flock = holder.AddComponent<WanderFlock>();
        if (start != null)
            Recorded.Set(flock, "startState", new TextAsset(start) { name = "start" });
        Recorded.Set(flock, "drawing", drawing);
        var material = new Material(Shader.Find("Standard")) { name = "agents", enableInstancing = instancing };
        var prefab = new GameObject("agent").transform;
        foreach (WanderGroupSettings g in (WanderGroupSettings[])Recorded.Get(flock, "groups"))
        {
            g.Mesh = new Mesh();
            g.Material = material;
            g.Prefab = prefab;
        }
        return flock;
    }

    static float Units(WanderFlock flock)
    {
        return (float)Recorded.Get(flock, "units");
    }

    /// <summary>The largest distance between agent i's drawn place and wander3d's, converted
    /// here by hand: (x, y, -z) * units in the component's space.</summary>
    static double Expected(WanderFlock flock, int i, double alpha, out Vector3 at, out Vector3 forward)
    {
        Double3 p = flock.Flock.PositionAt(i, alpha);
        Double3 h = flock.Flock.Agents[i].Heading;
        double u = Units(flock);
        at = new Vector3((float)(p.X * u), (float)(p.Y * u), (float)(-p.Z * u));
        forward = new Vector3((float)h.X, (float)h.Y, (float)-h.Z);
        return u;
    }

    static void Run(string start)
    {
        Recorded.Playing = true;
        Recorded.DeltaTime = 1f / 60f;

        // Objects: a start that fits is wander3d's run; each transform at (x, y, -z) * units.
        Recorded.Clear();
        WanderFlock objects = Component(start, WanderDrawing.Objects, true);
        Recorded.Call(objects, "Awake");
        var reference = new Wander3d.Flock(WanderScene.Create(), start);
        double alpha = 0.0;
        for (int frame = 0; frame < 90; frame++)
        {
            float delta = frame % 3 == 0 ? 0.031f : 0.007f; // frame rates vary
            Recorded.DeltaTime = delta;
            Recorded.Call(objects, "Update");
            alpha = reference.Update(delta);
        }
        bool same = objects.Flock.StepCount == reference.StepCount && objects.Flock.StepCount > 0;
        for (int i = 0; i < reference.Count; i++)
            same &= objects.Flock.Position[i].X == reference.Position[i].X && objects.Flock.Position[i].Z == reference.Position[i].Z;
        Say("identical", same, objects.Flock.StepCount);
        Transform holder = objects.transform;
        double far = 0.0, turned = 0.0, up = 1.0;
        for (int i = 0; i < objects.Flock.Count; i++)
        {
            Transform agent = holder.GetChild(i);
            Vector3 at, forward;
            Expected(objects, i, alpha, out at, out forward);
            far = Math.Max(far, (agent.localPosition - at).magnitude);
            Vector3 facing = agent.localRotation * Vector3.forward;
            turned = Math.Max(turned, (facing - forward).magnitude);
            up = Math.Min(up, (agent.localRotation * Vector3.up).y);
        }
        Say("objects", holder.childCount, objects.Flock.Count, holder.GetChild(0).name);
        Say("placed", far);
        Say("facing", turned);
        Say("upright", up);
        Say("errors", Recorded.Errors.Count);

        // Instanced: batches of at most 1023, every agent once, at the component's place.
        Recorded.Clear();
        WanderFlock instanced = Component(start, WanderDrawing.Instanced, true);
        Recorded.Call(instanced, "Awake");
        Recorded.DeltaTime = 0.05f;
        Recorded.Call(instanced, "Update");
        alpha = instanced.Flock.Update(0.0); // the alpha the frame was drawn at
        var batches = new List<string>();
        double worst = 0.0, worstTurn = 0.0;
        int drawnAgents = 0;
        Matrix4x4 world = instanced.transform.localToWorldMatrix;
        foreach (InstancedDraw draw in Recorded.Draws)
        {
            var instances = (Matrix4x4[])draw.Instances;
            batches.Add(instances.Length.ToString(CultureInfo.InvariantCulture));
            foreach (Matrix4x4 m in instances)
            {
                int i = drawnAgents++;
                Vector3 at, forward;
                Expected(instanced, i, alpha, out at, out forward);
                Vector4 column = m.GetColumn(3);
                worst = Math.Max(worst, (new Vector3(column.x, column.y, column.z) - world.MultiplyPoint3x4(at)).magnitude);
                Vector4 z = m.GetColumn(2);
                worstTurn = Math.Max(worstTurn, (new Vector3(z.x, z.y, z.z) - forward).magnitude);
            }
        }
        Say("batches", string.Join(",", batches.ToArray()));
        Say("drawn", drawnAgents, instanced.Flock.Count, Recorded.Draws.Count > 0 && Recorded.Draws[0].Params.receiveShadows);
        Say("instances", worst);
        Say("instance-facing", worstTurn);

        // OnValidate: the Inspector's numbers act on the running flock; a method change keeps
        // each target where it is; a value out of range is a warning, not an exception.
        Recorded.Clear();
        var groups = (WanderGroupSettings[])Recorded.Get(instanced, "groups");
        var before = new Double3[instanced.Flock.Count];
        for (int i = 0; i < before.Length; i++)
            before[i] = instanced.Flock.TargetOf(i);
        groups[0].Jitter = 31.5;
        groups[0].MaxSpeed = 17.0;
        groups[0].Method = groups[0].Method == WanderMethod.Angle ? WanderMethod.Noise : WanderMethod.Angle;
        Recorded.Call(instanced, "OnValidate");
        WanderParams p = instanced.Flock.Groups[0].Params;
        double moved = 0.0;
        for (int i = instanced.Flock.Groups[0].First; i < instanced.Flock.Groups[0].First + instanced.Flock.Groups[0].Count; i++)
            moved = Math.Max(moved, (instanced.Flock.TargetOf(i) - before[i]).Length);
        Say("applied", p.Jitter, p.MaxSpeed, p.Method == groups[0].Method);
        Say("target-moved", moved);
        groups[0].Mass = -1.0;
        Recorded.Call(instanced, "OnValidate");
        Say("refused", Recorded.Warnings.Count, Recorded.Errors.Count, instanced.Flock.Groups[0].Params.Mass > 0.0);
        groups[0].Mass = 1.0;

        // A material without instancing: logged, the others drawn, nothing thrown.
        Recorded.Clear();
        WanderFlock plain = Component(start, WanderDrawing.Instanced, false);
        Recorded.Call(plain, "Awake");
        Recorded.Call(plain, "Update");
        Say("no-instancing", Recorded.Errors.Count, Recorded.Draws.Count, Recorded.Errors.Count > 0 && Recorded.Errors[0].Contains("Enable GPU Instancing"));

        // A bad start file: logged (Debug.LogError), not thrown out of Awake; agents spawned.
        foreach (string bad in new[] { "not a start\n", start.Replace("wander3d-start 1", "wander3d-start 9"), start.Substring(0, start.Length / 2) })
        {
            Recorded.Clear();
            WanderFlock broken = Component(bad, WanderDrawing.Objects, true);
            Recorded.Call(broken, "Awake");
            var spawned = new Wander3d.Flock(WanderScene.Create());
            bool spawnedAlike = broken.Flock != null && broken.Flock.Position[0].X == spawned.Position[0].X;
            Say("bad-start", Recorded.Errors.Count, spawnedAlike, Recorded.Errors.Count > 0 ? Recorded.Errors[0].Replace('\n', ' ') : "");
        }

        // Gizmos: the box (centre z negated, size positive), a wander sphere per sphere-drawing
        // agent, a target dot and a line per agent, in world space.
        Recorded.Clear();
        Recorded.Call(objects, "OnDrawGizmosSelected");
        int wire = 0, dots = 0, lines = 0;
        string cube = "";
        foreach (string g in Recorded.Gizmos)
        {
            if (g.StartsWith("wiresphere", StringComparison.Ordinal)) wire++;
            else if (g.StartsWith("sphere", StringComparison.Ordinal)) dots++;
            else if (g.StartsWith("line", StringComparison.Ordinal)) lines++;
            else if (g.StartsWith("wirecube", StringComparison.Ordinal)) cube = g;
        }
        int spheres = 0;
        for (int i = 0; i < objects.Flock.Count; i++)
        {
            Double3 centre;
            if (objects.Flock.WanderSphere(i, out centre) > 0.0)
                spheres++;
        }
        Say("gizmos", wire, spheres, dots, lines, objects.Flock.Count);
        Say("box", cube);
        WanderBox box = objects.Flock.Box;
        Vector3 middle = objects.transform.TransformPoint(WanderFlock.ToUnity((box.Min + box.Max) * 0.5, Units(objects)));
        Say("box-expected", middle.x, middle.y, middle.z);
    }
}
