package guard

import (
	"regexp"
)

// Prompt injection: text that addresses the assistant instead of
// describing the user.

func injectionRules() []rule {
	s := ruleSet{category: Injection}
	const (
		ignoreWhy = "looks like a prompt-injection instruction to ignore earlier instructions"
		personaWh = "looks like a prompt-injection persona switch (telling the assistant who it now is)"
		markerWhy = "contains a fake chat-role marker used to smuggle in system or assistant turns"
		jailWhy   = "looks like a jailbreak prompt"
		hideWhy   = "looks like a prompt-injection instruction to hide things from the user"
		leakWhy   = "looks like a prompt-injection request to reveal the system prompt"
		metaWhy   = "looks like a prompt-injection message addressed to the AI rather than a fact about the user"
		newWhy    = "looks like injected replacement instructions"
	)
	// Devices one legitimately jailbreaks or puts in developer mode.
	const devices = `\b(?:iphone|ios|ipad|ipod|phone|android|pixel|samsung|kindle|switch|ps[345]|playstation|xbox|console|device|firmware|router|tv|chrome|chromebook|browser|extension|windows|macos|laptop|vscode)\b|手机|手機|安卓|设备|設備|主机|主機|苹果|蘋果|スマホ|アンドロイド`

	// --- English, on viewWords (lower-case, punctuation-free) ---
	s.add(viewWords, ignoreWhy,
		// "ignore (all) (the) previous/prior/above … instructions"
		`\b(?:ignore|disregard|forget|bypass|neglect)(?: (?:all|any|every|of|the|your|my|these|those|this|that))*(?: (?:previous|prior|above|earlier|preceding|foregoing|original|initial|former|system|safety|developer|hidden))+(?: [a-z]+)? (?:instructions?|prompts?|rules|guidelines|directives?|directions|commands|constraints|restrictions|guardrails|programming|messages|context|polic(?:y|ies)|orders|text)\b`,
		// "ignore all instructions"
		`\b(?:ignore|disregard|forget|bypass)(?: (?:all|any|every))(?: (?:of|the|your|my|these|those))*(?: [a-z]+)? (?:instructions?|prompts?|directives?|guardrails|programming)\b`,
		// "disregard your instructions / system prompt"
		`\b(?:ignore|disregard|forget|bypass|override)(?: all)?(?: of)? your(?: [a-z]+)? (?:instructions?|rules|guidelines|programming|system prompt|prompt|directives?|restrictions|constraints|guardrails|training|safety|filters|content polic(?:y|ies)|polic(?:y|ies))\b`,
		// "ignore the above", "forget everything you were told"
		`\b(?:ignore|disregard|forget)(?: all| everything)?(?: of)?(?: the| that| what)? (?:above|everything above|everything before|what you were told|you were told|you have been told|what i said before)\b`,
	)
	s.add(viewSquash, ignoreWhy,
		`(?:ignore|disregard|forget)(?:all|any)?(?:of)?(?:the|your)?(?:previous|prior|above|earlier|preceding)(?:instructions?|prompts?|rules|directives?)`)
	s.add(viewWords, personaWh,
		`\b(?:you are|you re|youre|ur|u r) now\b`,
		`\byou (?:are|re) no longer\b`,
		`\byou (?:will|shall|must) now\b`,
		`\b(?:from now on|from this point(?: on| forward)?|starting now|henceforth)(?: [a-z]+)?? (?:you are|you re|youre|you will be|you ll be|you act|act as|behave as|respond as|pretend|roleplay|role play|you must|you will|you shall|ignore|disregard)\b`,
		`\bpretend(?: that)? (?:you|you re|youre|to be an? (?:ai|assistant|model|chatbot|bot|unrestricted|unfiltered|uncensored|evil|different))\b`,
		`\byour new (?:role|persona|identity|name|task|goal|purpose|instructions|rules|directive) (?:is|are)\b`,
	)
	s.add(viewLower, personaWh,
		// Imperative role-play openers: at the start of a sentence or
		// after "you/please/now". "works as an actor", "wants the bot to
		// act as a reviewer" (a fact) and "enjoys roleplay as a rogue" pass.
		`(?:(?:^|[.!?;:\n])\s*(?:(?:now|ok|okay|so|alright|from now on|henceforth)\s*,?\s*)?|\b(?:you(?: will| must| should| shall| can| are to)?|please)\s+)(?:act|behave|roleplay|role-play|role play|pretend)\s+(?:as|like|to be|that)\b`)
	s.add(viewWords, jailWhy,
		`\b(?:act|behave|respond|operate|function|answer|reply|roleplay|role play|pretend|be)(?: [a-z]+){0,8}? (?:without|with no|free of|free from|unbound by|not bound by|no longer bound by|ignoring) (?:any )?(?:restrictions|limitations|limits|filters|rules|guidelines|censorship|morals|ethics|ethical|safety|boundaries|content polic(?:y|ies)|polic(?:y|ies))\b`,
		`\b(?:act as|be|become|as|you are|you re) (?:an? |the )?(?:unrestricted|unfiltered|uncensored|jailbroken|evil) (?:ai|assistant|model|chatbot|bot|llm|version)\b`,
		`\bdo anything now\b`,
		`\b(?:you|assistant|chatgpt|claude|gpt|ai|model|bot)(?: [a-z]+){0,3} (?:developer|dev|god|sudo|unrestricted|dan|jailbreak|jailbroken) mode\b`,
	)
	s.add(viewWords, jailWhy,
		`\b(?:enable|activate|enter|turn on|switch to) (?:developer|dev|dan|jailbreak) mode\b|\b(?:developer|dev|dan|jailbreak) mode (?:enabled|activated|output|response)\b`,
	).unless = regexp.MustCompile(devices)
	// The bare word: not when it is about a device or about studying
	// jailbreaks (the payload of a real one trips the other rules).
	s.add(viewWords, jailWhy, `\bjailbr(?:eak|eaks|eaking|oken|oke)\b`).unless = regexp.MustCompile(devices + `|\b(?:research\w*|paper|papers|study|studies|talk|defen[cs]es?|detect\w*|security)\b`)
	s.add(viewSquash, jailWhy, `doanythingnow|youarenow(?:dan|unrestricted|jailbroken|free)`)
	// "DAN" only in capitals and in jailbreak context: Dan is a colleague.
	s.add(viewCased, jailWhy,
		`(?i:\b(?:you are|you're|act as|pretend to be|become|roleplay as|play|called|named)\s+)DAN\b|\bDAN\s*(?:mode|prompt|jailbreak|\(|:)`)
	s.add(viewWords, hideWhy,
		`\b(?:do not|don t|dont|never|without)(?: ever)? (?:tell|telling|inform|informing|reveal|revealing|mention|mentioning|disclose|disclosing|show|showing|alert|alerting|notify|notifying|let|letting)(?: [a-z]+)?(?: to)? (?:the user|user|the users|the human|anyone|the operator)(?: (?:that|about|this|anything|what|how|why|where|when|any|know|see)\b|$)`,
		`\b(?:keep|hide) (?:this|it|that|these)(?: [a-z]+)? (?:secret |hidden )?from (?:the user|user|the human)\b`,
		`\bthe user (?:must|should) not (?:know|see|find out|be told)\b`,
	)
	s.add(viewWords, leakWhy,
		`\b(?:reveal|show|print|output|repeat|leak|display|dump|disclose|share|expose|give me|tell me|send me|write out|spell out|recite|echo|paste)(?: me)?(?: back)?(?: all)?(?: of)? your(?: [a-z]+)? (?:system prompt|system message|initial prompt|hidden prompt|original prompt|instructions|prompt|rules|guidelines|configuration)\b`,
		`\b(?:reveal|show|print|output|repeat|leak|display|dump|disclose|expose|recite|echo)(?: me)? the(?: full| entire| complete| whole)? (?:system prompt|system message|initial prompt|hidden prompt|original prompt|hidden instructions|system instructions)\b`,
		`\bwhat (?:is|are|were) your (?:system prompt|initial prompt|instructions|initial instructions)\b`,
	)
	s.add(viewSquash, leakWhy, `(?:reveal|print|show|repeat|leak)yoursystemprompt`)
	s.add(viewWords, metaWhy,
		`\bif you are an? (?:ai|llm|language model|assistant|chatbot|bot)\b`,
		`\bwhen (?:you|the assistant|the ai|the model) (?:reads?|sees?|process(?:es)?) this (?:memory|note|entry|message|instruction)\b`,
		`\b(?:ai|assistant|model|llm|agent|bot) reading this\b`,
	)
	s.add(viewLower, metaWhy,
		`\b(?:note|message|instructions?) (?:to|for) (?:the )?(?:ai|assistant|llm|language model|chatbot|claude|chatgpt|gpt|model|agent)\s*:`)
	// Fake role markers and headers, on viewLower (punctuation matters).
	s.add(viewLower, markerWhy,
		`<\|[a-z_]+\|>`,
		`<\s*/?\s*(?:system|sys|instructions?|developer|assistant|im_start|im_end)\s*>`,
		`\[\s*/?\s*(?:system|inst|sys|assistant|developer|system message|system prompt)\s*\]`,
		`<<\s*/?\s*sys\s*>>`,
		`(?m)^\s*#{1,6}\s*(?:system|instructions?|developer|assistant)\s*(?::|$)`,
		`(?m)^\s*(?:system|developer)\s*:\s*(?:you|ignore|disregard|from now|new|always|never|do not|don't)\b`,
	)
	s.add(viewLower, newWhy,
		`\b(?:new|updated|revised|real|actual|true|additional|secret|hidden|override)(?: system)? (?:instructions?|prompt|directives?)\s*:`,
		`\bsystem (?:prompt|message|instructions?|override|note)\s*:`,
	)

	// --- Chinese (simplified and traditional), on viewSquash ---
	const zhQual = `(?:(?:你的?|之前|以前|先前|上面|以上|上述|前面|前述|此前|原有|原来|原來|原先|原始|所有|全部|一切|任何|系统|系統|安全)的?){1,3}`
	s.add(viewSquash, ignoreWhy,
		`(?:忽略|忽视|忽視|无视|無視|不要理会|不要理會|不用理会|不用理會|别管|別管|抛开|拋開|绕过|繞過)掉?`+zhQual+`(?:指令|指示|命令|提示词|提示詞|提示|规则|規則|设定|設定|限制|约束|約束|系统提示|系統提示)`,
		// "forget" is weaker ("forgets the previous settings" is a fact):
		// only with instructions as the object.
		`(?:忘记|忘記|忘掉)掉?`+zhQual+`(?:指令|指示|命令|提示词|提示詞|系统提示|系統提示)`)
	s.add(viewSquash, personaWh,
		`你(?:现在|現在)(?:是|就是|扮演|成为|成為|变成|變成|叫)`,
		`你不再是`,
		`(?:从现在开始|從現在開始|从现在起|從現在起|从此刻起|從此刻起|从今以后|從今以後|从今往后|從今往後)(?:你|您)`,
		`(?:你|请|請)(?:来|來)?扮演`,
		`(?:假装|假裝|假设|假設)(?:你|您)是`,
	)
	s.add(viewSquash, jailWhy,
		`扮演(?:一个|一個|一名)?(?:没有|沒有|不受|无|無)(?:任何)?(?:限制|约束|約束|审查|審查|道德|规则|規則)`,
		`你(?:现在|現在)?(?:没有|沒有|不受)(?:任何)?(?:限制|约束|約束|规则|規則|审查|審查)`,
		`你(?:已经|已經)?(?:进入|進入|处于|處於)(?:开发者|開發者)模式`,
		`(?:开发者|開發者)模式(?:已)?(?:启用|啟用|开启|開啟)`,
	)
	s.add(viewSquash, jailWhy, `越狱|越獄|脱獄`).unless = regexp.MustCompile(devices)
	s.add(viewSquash, hideWhy,
		`(?:不要|别|別|不准|不许|不許|切勿|勿|不能|绝不|絕不|千万别|千萬別)(?:告诉|告訴|透露给|透露給|通知)(?:用户|用戶|使用者)`,
		`(?:不要|别|別|不准|不许|不許|切勿|勿|不能)(?:让|讓)(?:用户|用戶|使用者)(?:知道|发现|發現|看到)`,
	)
	s.add(viewSquash, leakWhy,
		`(?:泄露|洩露|透露|显示|顯示|输出|輸出|告诉我|告訴我|打印|展示|重复|重複|说出|說出|给我看|給我看|公开|公開)(?:一下)?(?:你的?|出)?(?:完整的?|全部的?)?(?:系统提示|系統提示|系统指令|系統指令|初始指令|隐藏指令|隱藏指令)`)
	s.add(viewLower, newWhy,
		`(?:系统提示|系統提示|系统指令|系統指令)(?:词|詞)?\s*:`,
		`新的?(?:指令|指示|系统提示|系統提示)\s*:`,
	)

	// --- Japanese, on viewSquash ---
	s.add(viewSquash, ignoreWhy,
		`(?:以前|前|上記|上|これまで|先ほど|先程|今まで|すべて|全て|元)の(?:すべての|全ての)?(?:指示|命令|指令|ルール|プロンプト|設定|制約|制限)を(?:すべて|全て)?(?:無視|忘れ)`,
		`(?:指示|命令|ルール|制限|制約|プロンプト)を(?:すべて|全て)?無視(?:して|しろ|せよ|すること)`,
	)
	s.add(viewSquash, personaWh,
		`(?:今から|これから|今後)あなたは`, `あなたは(?:今から|これから|もう)`,
		`(?:として|に)(?:振る舞|振舞|なりきっ)て(?:ください|下さい|くれ|$)`,
	)
	s.add(viewSquash, jailWhy, `(?:制限|制約|検閲)のない(?:ai|アシスタント|モデル)`)
	s.add(viewSquash, jailWhy, `開発者モード(?:を)?(?:有効|オン)`).unless = regexp.MustCompile(devices)
	s.add(viewSquash, hideWhy, `ユーザーに(?:は)?(?:言わ|教え|伝え|知らせ)ないで`)
	s.add(viewSquash, leakWhy, `システムプロンプトを?(?:表示|教え|出力|見せ|公開|開示)`)
	s.add(viewLower, newWhy, `システムプロンプト\s*:`, `新しい指示\s*:`)

	// --- Spanish, German, French, on viewWords ---
	s.add(viewWords, ignoreWhy,
		`\b(?:ignora|ignore|ignorar|olvida|olvidar|omite|descarta)(?: todas| todos)?(?: las| los| tus| sus)? (?:instrucciones|indicaciones|órdenes|ordenes|reglas|directrices)(?: [a-z]+){0,2}? (?:anteriores|previas|previos|de arriba|del sistema|originales)\b`,
		`\b(?:ignora|olvida|ignorar|olvidar)(?: todas)? tus (?:instrucciones|reglas|indicaciones)\b`,
		`\b(?:ignoriere|ignorier|ignorieren sie|vergiss|vergessen sie|missachte)(?: alle)?(?: deine| die| ihre| bisherigen| vorherigen| vorigen| obigen| früheren)*(?: [a-zäöü]+)? (?:anweisungen|instruktionen|befehle|regeln|vorgaben|richtlinien|systemanweisungen)\b`,
		`\b(?:ignore[sz]?|oublie[sz]?)(?: toutes| tous)? (?:les|tes|vos) (?:instructions|consignes|règles|regles)\b`,
	)
	s.add(viewWords, personaWh,
		`\bahora (?:eres|serás|seras|actúas|actuas)\b`,
		`\ba partir de ahora(?: [a-z]+)? (?:eres|actúa|actua|actuarás|actuaras|serás|seras|finge|responde)\b`,
		`\bfinge (?:que eres|ser)\b`,
		`\bdu bist (?:jetzt|nun|ab jetzt|ab sofort|von nun an)\b`,
		`\b(?:ab jetzt|ab sofort|von nun an) (?:bist du|verhältst du dich|tust du|antwortest du)\b`,
		`\btu so als (?:ob du|wärst du|waerst du)\b`,
		`\btu es (?:maintenant|désormais|desormais)\b`,
		`\b(?:à partir de maintenant|a partir de maintenant|désormais|desormais) tu (?:es|seras|agis|dois)\b`,
		`\bfais semblant d (?:être|etre)\b`,
	)
	s.add(viewWords, hideWhy,
		`\bno (?:le )?(?:digas|cuentes|reveles|menciones)(?: [a-z]+)? al usuario\b`,
		`\bsag(?:e)?(?: es)? (?:dem|den) (?:benutzer|nutzer|anwender)(?: [a-z]+)? nicht\b`,
		`\bne (?:le )?dis (?:rien |pas )?(?:à|a) l utilisateur\b`,
	)
	s.add(viewWords, leakWhy,
		`\b(?:revela|muestra|muéstrame|muestrame|dime|imprime)(?: [a-z]+)? (?:tu|el) (?:prompt|mensaje|indicaciones|instrucciones)(?: [a-z]+){0,2}? (?:del )?sistema\b`,
		`\b(?:zeige|zeig|verrate|gib)(?: mir)?(?: [a-z]+)? (?:deinen|deine|den) (?:systemprompt|system prompt|systemanweisungen|anweisungen)\b`,
	)
	s.add(viewWords, jailWhy, `\b(?:modo (?:desarrollador|sin restricciones|dan)|entwicklermodus)\b`).unless = regexp.MustCompile(devices)
	return s.rules
}
