//! Tests of the skill calls: answers kept or refused, the cache.

use super::*;

#[test]
fn answers_are_checked_against_each_skills_schema() {
    assert!(
        Skill::Intent
            .check(&json!({"action_type": "click", "selector": {"role": "button", "text": "Sign in"}, "confidence": 0.9}))
            .is_empty()
    );
    let bad = Skill::Intent.check(&json!({"confidence": "high"}));
    assert_eq!(bad.len(), 2, "{bad:?}");
    // The seed's free strings are valid: the caller says whether runner can use them.
    assert!(
        Skill::Intent
            .check(&json!({"action_type": "Tap", "selector": "role=button[name=\"Go\"]", "confidence": 0.5}))
            .is_empty()
    );
    assert!(
        Skill::TrajectoryLabeling
            .check(&json!({"is_meaningful": true, "semantic_label": "open team", "script_name": "Open Team", "confidence": 1}))
            .is_empty()
    );
    assert!(
        !Skill::TrajectoryLabeling
            .check(&json!({"semantic_label": "x", "script_name": "x", "confidence": 1}))
            .is_empty()
    );
    assert!(
        Skill::PageAnalysis
            .check(&json!({"summary": "s", "frontier_tasks": [{"selector": {"css": "#a"}, "action": "click", "reason": "r", "priority": 3, "is_destructive": false}], "test_ideas": []}))
            .is_empty()
    );
    assert!(
        Skill::PageAnalysis
            .check(&json!({"summary": "s", "frontier_tasks": [{"selector": "@e5", "action": "drag", "reason": "r", "priority": 3, "is_destructive": false}], "test_ideas": [{"name": "n", "description": "d", "type": "smoke"}]}))
            .is_empty()
    );
    assert!(
        !Skill::TestGeneration
            .check(&json!({"steps": []}))
            .is_empty()
    );
}

#[test]
fn an_answer_is_refused_only_when_nothing_in_it_is_usable() {
    fn refuse(_: &str, _: &mut Value) -> Result<(), String> {
        Err("no".to_string())
    }
    let call = |fit: &'static FitItem<'static>| SkillCall {
        skill: Skill::PageAnalysis,
        input: json!({}),
        key: json!({}),
        profile: None,
        variant: None,
        use_cache: false,
        normalize: &keep,
        fit_item: fit,
    };
    let idea = json!({"name": "n", "description": "d", "type": "smoke"});
    let answer = |ideas: Value| json!({"summary": "s", "frontier_tasks": [], "test_ideas": ideas});
    let all_dropped =
        usable(&call(&refuse), answer(json!([idea])), &Masker::default()).unwrap_err();
    assert!(
        all_dropped[0].contains("nothing in the answer is usable"),
        "{all_dropped:?}"
    );
    assert!(
        all_dropped[1].starts_with("test_ideas[0] (\"n\"): no"),
        "{all_dropped:?}"
    );
    // A page with nothing to try is an answer all the same.
    assert!(usable(&call(&refuse), answer(json!([])), &Masker::default()).is_ok());
    let kept = usable(
        &call(&crate::agent::keep_item),
        answer(json!([idea, {"type": 1}])),
        &Masker::default(),
    )
    .unwrap();
    assert_eq!(kept.value["test_ideas"], json!([idea]));
    assert_eq!(kept.dropped.len(), 1, "{:?}", kept.dropped);
}

#[test]
fn the_prompt_ends_with_the_request_block() {
    let p = prompt(
        Skill::Intent,
        &json!({"intent": "点击登录按钮", "url": "http://x/"}),
    );
    let block = p.rsplit("```json").next().unwrap();
    let v: Value = serde_json::from_str(block.trim().trim_end_matches("```").trim()).unwrap();
    assert_eq!(v["skill"], "intent");
    assert_eq!(v["intent"], "点击登录按钮");
}

#[test]
fn an_answer_holding_a_secret_is_not_cached_and_the_miss_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let profiles = Registry::default();
    let env = SkillEnv {
        profiles: &profiles,
        cache: CacheMode::ReadWrite,
        cache_dir: dir.path().to_path_buf(),
        workspace: dir.path().to_path_buf(),
        env: IndexMap::new(),
        masker: Masker::new(["pa\"ss".to_string()]),
        relay: std::sync::Arc::new(|_: &str| {}),
        cancel: CancellationToken::new(),
        log_path: dir.path().join("log"),
        timeout: Duration::from_secs(1),
    };
    let key = json!({"intent": "sign in"});
    let secret = json!({"action_type": "fill", "value": "pa\"ss-1", "confidence": 1});
    // Its JSON-escaped form is what the answer's text holds.
    assert!(holds_secret(&env.masker, &secret));
    let answer = |value: &Value| Answer {
        value: value.clone(),
        dropped: Vec::new(),
        cached: None,
    };
    store(&env, Skill::Intent, &key, &answer(&secret));
    assert_eq!(cached(&env, Skill::Intent, &key), None);
    let call = SkillCall {
        skill: Skill::Intent,
        input: json!({}),
        key: key.clone(),
        profile: None,
        variant: None,
        use_cache: true,
        normalize: &keep,
        fit_item: &crate::agent::sift::keep_item,
    };
    let miss = read_only_miss(&call, &entry(&env, call.skill, &call.key), &env.masker).to_string();
    assert!(
        miss.contains("holds a secret, so it is never cached"),
        "{miss}"
    );

    // A plain answer replaces the entry and is replayed.
    let plain = json!({"action_type": "fill", "value": "pass", "confidence": 1});
    assert!(!holds_secret(&env.masker, &plain));
    store(&env, Skill::Intent, &key, &answer(&plain));
    assert_eq!(cached(&env, Skill::Intent, &key), Some(plain));
    assert!(
        read_only_miss(&call, &entry(&env, call.skill, &call.key), &env.masker)
            .to_string()
            .contains("record it")
    );
}

#[test]
fn cache_keys_differ_by_skill_and_question() {
    let d = Path::new("/c");
    let m = Masker::default();
    let a = cache_file(d, Skill::Intent, &json!({"intent": "a"}), &m);
    assert_ne!(a, cache_file(d, Skill::Intent, &json!({"intent": "b"}), &m));
    assert_ne!(
        a,
        cache_file(d, Skill::PageAnalysis, &json!({"intent": "a"}), &m)
    );
    assert!(a.unwrap().starts_with("/c/intent"));
}

/// The cache file's name and the agent logs' are no function of a secret's value (attack 26
/// C3: they were the SHA-256 of the question with the raw secret in it, next to the masked
/// question, so a 6-digit secret was found in 2 s): a question that differs only by the
/// secret's value has the same entry, whose answer (one that holds no secret) is replayed.
#[test]
fn the_names_of_a_question_that_reads_a_secret_do_not_depend_on_its_value() {
    let dir = tempfile::tempdir().unwrap();
    let profiles = Registry::default();
    let env_of = |secret: &str| SkillEnv {
        profiles: &profiles,
        cache: CacheMode::ReadWrite,
        cache_dir: dir.path().join("cache"),
        workspace: dir.path().to_path_buf(),
        env: IndexMap::new(),
        masker: Masker::new([secret.to_string()]),
        relay: std::sync::Arc::new(|_: &str| {}),
        cancel: CancellationToken::new(),
        log_path: dir.path().join("002-act"),
        timeout: Duration::from_secs(1),
    };
    let key = |secret: &str| json!({"intent": format!("put {secret} in the Token box")});
    let (one, two) = (env_of("482193"), env_of("771045"));
    let plain = json!({"action_type": "click", "selector": {"role": "button", "text": "Go"}, "confidence": 1});
    let answer = Answer {
        value: plain.clone(),
        dropped: Vec::new(),
        cached: None,
    };
    store(&one, Skill::Intent, &key("482193"), &answer);
    let names: Vec<String> = std::fs::read_dir(dir.path().join("cache/intent"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    let raw: String = Sha256::digest(format!("intent\0{}", key("482193")).as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_ne!(names[0], format!("{raw}.json"));
    assert_eq!(cached(&two, Skill::Intent, &key("771045")), Some(plain));
    assert_eq!(
        log_file(&one, Skill::Intent, &key("482193"), 1),
        log_file(&two, Skill::Intent, &key("771045"), 1)
    );
    let log = log_file(&one, Skill::Intent, &key("482193"), 1);
    assert!(!log.to_string_lossy().contains(&raw[..12]), "{log:?}");
}

/// Two questions that differ only in which secret they read are two questions (attack 27 D6:
/// both masked to `***`, so customer B's `act` replayed the click on customer A and passed);
/// one secret's values share one entry, and a question holding a value made of a secret whose
/// name cannot be told is never cached.
#[test]
fn questions_that_read_different_secrets_have_different_entries() {
    let dir = tempfile::tempdir().unwrap();
    let profiles = Registry::default();
    let env_of = |secrets: &[(&str, &str)]| {
        let masker = Masker::default();
        for (name, value) in secrets {
            masker.add_named(name, value);
        }
        SkillEnv {
            profiles: &profiles,
            cache: CacheMode::ReadWrite,
            cache_dir: dir.path().join("cache"),
            workspace: dir.path().to_path_buf(),
            env: IndexMap::new(),
            masker,
            relay: std::sync::Arc::new(|_: &str| {}),
            cancel: CancellationToken::new(),
            log_path: dir.path().join("002-act"),
            timeout: Duration::from_secs(1),
        }
    };
    let key = |id: &str| json!({"intent": format!("open the customer whose id is {id}")});
    let env = env_of(&[("CUST_A", "cust-1001-acme"), ("CUST_B", "cust-2002-globex")]);
    let click_a = json!({"action_type": "click", "selector": {"css": "#c1"}, "confidence": 1});
    let answer = Answer {
        value: click_a.clone(),
        dropped: Vec::new(),
        cached: None,
    };
    store(&env, Skill::Intent, &key("cust-1001-acme"), &answer);
    assert_eq!(cached(&env, Skill::Intent, &key("cust-2002-globex")), None);
    assert_ne!(
        cache_file(d(&env), Skill::Intent, &key("cust-1001-acme"), &env.masker),
        cache_file(
            d(&env),
            Skill::Intent,
            &key("cust-2002-globex"),
            &env.masker
        )
    );
    // The same secret with another value: the same question.
    let later = env_of(&[
        ("CUST_A", "cust-9009-other"),
        ("CUST_B", "cust-2002-globex"),
    ]);
    assert_eq!(
        cached(&later, Skill::Intent, &key("cust-9009-other")),
        Some(click_a.clone())
    );
    // A value made of a secret in which no secret's name can be told: not cached.
    let made = env_of(&[("PIN", "9312346")]);
    made.masker.add_derived(["77-31-23".to_string()]);
    store(&made, Skill::Intent, &key("77-31-23"), &answer);
    assert_eq!(cached(&made, Skill::Intent, &key("77-31-23")), None);
    let files = std::fs::read_dir(dir.path().join("cache/intent")).unwrap();
    assert_eq!(files.count(), 1);
}

fn d<'a>(env: &'a SkillEnv<'_>) -> &'a Path {
    &env.cache_dir
}
