package guard

import (
	"regexp"
)

// Prompt injection: text that addresses the assistant instead of
// describing the user.

// The reasons of the injection tables, shared by the per-language files.
const (
	ignoreWhy   = "looks like a prompt-injection instruction to ignore earlier instructions"
	personaWh   = "looks like a prompt-injection persona switch (telling the assistant who it now is)"
	markerWhy   = "contains a fake chat-role marker used to smuggle in system or assistant turns"
	jailWhy     = "looks like a jailbreak prompt"
	hideWhy     = "looks like a prompt-injection instruction to hide things from the user"
	leakWhy     = "looks like a prompt-injection request to reveal the system prompt"
	metaWhy     = "looks like a prompt-injection message addressed to the AI rather than a fact about the user"
	newWhy      = "looks like injected replacement instructions"
	approvalWhy = "looks like an instruction to act without the user's approval (approvals cannot be waived from memory)"
	authorWhy   = "looks like a prompt-injection claim that this memory outranks the assistant's instructions or safety rules"
)

// devices are what one legitimately jailbreaks or puts in developer mode.
const devices = `\b(?:iphone|ios|ipad|ipod|phone|android|pixel|samsung|kindle|switch|ps[345]|playstation|xbox|console|device|firmware|router|tv|chrome|chromebook|browser|extension|windows|macos|laptop|vscode)\b|手机|手機|安卓|设备|設備|主机|主機|苹果|蘋果|スマホ|アンドロイド`

// injectionRules is long because it is a table, one rule per line.
func injectionRules() []rule {
	s := ruleSet{category: Injection}

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
		`(?i:\b(?:you are|you're|act as|pretend to be|become|roleplay as|play|called|named|eres|fueras|sei|bist|jesteś|ben je|als)\s+)DAN\b|\bDAN\s*(?:mode|prompt|jailbreak|\(|:)`).need = []string{"DAN"}
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

	// More English (approval bypass, claims of authority, …), then the
	// other languages, each in its own file.
	englishMoreRules(&s)
	cjkRules(&s)
	europeanRules(&s)
	europeanMoreRules(&s)
	scriptRules(&s)
	ukrainianVietnameseRules(&s)
	return s.rules
}
