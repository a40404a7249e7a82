// UserScript.cs: a game script as Unity projects write them, with UnityEngine,
// UnityEngine.SceneManagement and the port's core imported side by side; the simple names it
// uses (Scene, SceneManager, Random, Object, Debug, Time, Vector3) must each mean Unity's type
// alone, or the script fails with CS0104 (an ambiguous reference), as it would in Unity.
using UnityEngine;
using UnityEngine.SceneManagement;
using Wander3d;

public class LevelFlock : MonoBehaviour
{
    [SerializeField] string nextLevel = "Level2";
    Flock flock;

    void Awake()
    {
        Scene scene = SceneManager.GetActiveScene();
        Debug.Log("wandering in " + scene.name);
        SceneManager.sceneLoaded += OnLoaded;
        flock = new Flock(WanderScene.Create());
    }

    void OnLoaded(Scene scene, LoadSceneMode mode)
    {
        Debug.Log(scene.name + " loaded");
    }

    void Update()
    {
        flock.Update(Time.deltaTime);
        Vector3 jiggle = new Vector3(Random.Range(-1f, 1f), 0f, 0f);
        if (jiggle.x > 2f)
        {
            Object.Destroy(gameObject);
            SceneManager.LoadScene(nextLevel);
        }
    }
}
