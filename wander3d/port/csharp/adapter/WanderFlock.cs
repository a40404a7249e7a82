// SPDX-FileCopyrightText: 2026 The wander3d authors
// SPDX-License-Identifier: MIT
// WanderFlock.cs: a Unity MonoBehaviour that runs a wander3d flock (Wander.cs) and moves one
// Transform per agent. Add it to an empty GameObject and give it an agent prefab.
//
// The simulation steps in fixed steps of the scene's dt, whatever the frame rate (the core's
// Update), and each agent is drawn interpolated between its last two steps. wander3d's +y is
// Unity's up; the GameObject's transform places (and may rotate or scale) the whole box.
// Godot 4 C#: see README.md (derive from Node3D, _Process instead of Update, no Gizmos).

using UnityEngine;
using Wander3d;

public sealed class WanderFlock : MonoBehaviour
{
    [Tooltip("One instance per agent; its +z is its forward.")]
    public Transform AgentPrefab;

    [Tooltip("Metres per wander3d unit.")]
    public float Units = 0.1f;

    [Tooltip("Optional: start.txt, wander3d's exact start of the scene.")]
    public TextAsset StartState;

    [Tooltip("Draw each agent's wander sphere and target when selected (Gizmos).")]
    public bool DebugDraw = true;

    /// <summary>The flock: its Groups[g].Params may be edited at any time.</summary>
    public Flock Flock { get; private set; }

    Transform[] agents;
    double alpha;

    void Awake()
    {
        Flock = new Flock(Scene.Create(), StartState != null ? StartState.text : null);
        agents = new Transform[Flock.Count];
        for (int i = 0; i < Flock.Count; i++)
        {
            agents[i] = Instantiate(AgentPrefab, transform);
            agents[i].name = Flock.Groups[Flock.GroupOf[i]].Name + " " + i;
        }
        Place();
    }

    void Update()
    {
        alpha = Flock.Update(Time.deltaTime);
        Place();
    }

    void Place()
    {
        for (int i = 0; i < Flock.Count; i++)
        {
            double x, y, z;
            Flock.PositionAt(i, alpha, out x, out y, out z);
            agents[i].localPosition = new Vector3((float)x, (float)y, (float)z) * Units;
            var heading = new Vector3(
                (float)Flock.Heading[3 * i],
                (float)Flock.Heading[3 * i + 1],
                (float)Flock.Heading[3 * i + 2]
            );
            if (heading.sqrMagnitude > 0f)
                agents[i].localRotation = Quaternion.LookRotation(heading);
        }
    }

    void OnDrawGizmosSelected()
    {
        if (!DebugDraw || Flock == null)
            return;
        Gizmos.matrix = transform.localToWorldMatrix;
        for (int i = 0; i < Flock.Count; i++)
        {
            double x, y, z;
            double radius = Flock.WanderSphere(i, out x, out y, out z);
            if (radius > 0.0)
            {
                Gizmos.color = Color.cyan;
                Gizmos.DrawWireSphere(new Vector3((float)x, (float)y, (float)z) * Units, (float)radius * Units);
            }
            var target = new Vector3(
                (float)Flock.Target[3 * i],
                (float)Flock.Target[3 * i + 1],
                (float)Flock.Target[3 * i + 2]
            ) * Units;
            Gizmos.color = Color.yellow;
            Gizmos.DrawSphere(target, 0.5f * Units);
            Gizmos.DrawLine(agents[i].localPosition, target);
        }
        Gizmos.color = Color.gray;
        Vector3 low = new Vector3((float)Flock.Low[0], (float)Flock.Low[1], (float)Flock.Low[2]) * Units;
        Vector3 high = new Vector3((float)Flock.High[0], (float)Flock.High[1], (float)Flock.High[2]) * Units;
        Gizmos.DrawWireCube((low + high) * 0.5f, high - low);
    }
}
