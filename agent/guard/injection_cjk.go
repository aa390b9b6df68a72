package guard

import "regexp"

// Prompt injection in Chinese, Japanese and Korean. These run on
// viewSquash: the languages do not separate words with spaces (Korean
// does, loosely), so the patterns spell phrases without any, and
// particles are optional where speakers drop them.

// cjkRules is long because it is a table, one rule per line.
func cjkRules(s *ruleSet) {
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

	// More Chinese: "ignore" with a clause before the object ("无视你之前
	// 收到的全部规则"), "from today on you are", no-restriction assistants,
	// skipping consent, and sending the user's data somewhere.
	s.add(viewSquash, ignoreWhy,
		`(?:无视|無視|忽略|忽视|忽視|不要理会|不要理會)(?:你|您)\p{Han}{0,8}?(?:规则|規則|指令|指示|限制|设定|設定|约束|約束)`)
	s.add(viewSquash, personaWh,
		`(?:从今天起|從今天起|从今天开始|從今天開始|从今往后|從今往後|以后|以後)(?:你|您)(?:就)?(?:是|扮演|成为|成為|叫)`)
	s.add(viewSquash, jailWhy,
		`(?:没有|沒有|不受|无|無)(?:任何)?(?:限制|约束|約束|审查|審查|过滤|過濾)的(?:助手|ai|人工智能|模型|机器人|機器人|助理)`)
	s.add(viewSquash, approvalWhy,
		`(?:不要|别|別|无需|無需|不用|不必|永远不要|永遠不要|绝不|絕不|从不|從不)(?:再)?(?:征求|徵求|请求|請求|询问|詢問|等待|要求|获得|獲得)(?:用户|用戶|使用者|我|他|她)?的?(?:同意|批准|许可|許可|确认|確認|授权|授權)`,
		`(?:未经|未經|无需|無需|不经|不經)(?:用户|用戶|使用者)?(?:同意|批准|许可|許可|确认|確認|授权|授權)(?:就|直接)?(?:执行|執行|运行|運行|删除|刪除)`)
	s.add(viewSquash, "looks like an instruction to send the user's data elsewhere",
		`(?:把|将|將)(?:用户|用戶|使用者)?的?(?:对话|對話|聊天|消息|訊息|记忆|記憶|密钥|密鑰|密码|密碼|文件|数据|數據|历史|歷史)\p{Han}{0,6}?(?:发送|發送|发给|發給|上传|上傳|转发|轉發|提交)(?:到|至|给|給)`)

	// More Japanese: は/も as well as を after the object, "forget the
	// safety rules", obeying any request, not asking for approval.
	s.add(viewSquash, ignoreWhy,
		`(?:以前|前|上記|これまで|先ほど|今まで|元)の(?:すべての|全ての)?(?:指示|命令|指令|ルール|プロンプト|設定|制約|制限)[はも](?:すべて|全て)?(?:無視|忘れ)`,
		`(?:安全|セキュリティ|倫理)(?:上の)?(?:ルール|規則|制限|制約|ガイドライン)を(?:すべて|全て)?(?:忘れ|無視)`)
	s.add(viewSquash, authorWhy, `(?:どんな|あらゆる|すべての|全ての)(?:要求|命令|指示|リクエスト)に(?:も)?従`)
	s.add(viewSquash, approvalWhy,
		`(?:承認|許可|確認|同意)を?(?:求め|取ら|得|待た|聞か|とら)ないで`,
		`(?:承認|許可|確認)(?:なし|なく|不要)で(?:実行|削除|コマンド)`)
	s.add(viewSquash, leakWhy, `システムプロンプトを?(?:全文|すべて|全て|そのまま)(?:表示|教え|出力|見せ|公開|開示)`)

	// --- Korean ---
	const koNoun = `(?:지시|지침|명령|규칙|프롬프트|제한|설정)(?:사항|들)?`
	// Imperative endings only: "이전 규칙을 무시하는 편이다" (tends to
	// ignore earlier rules) is a fact.
	const koIgnore = `(?:무시(?:해|하고|하세요|하십시오|하라|해라|해줘|할것)|잊(?:어라|어버려|어줘|으세요|어요|고|어$))`
	s.add(viewSquash, ignoreWhy,
		`(?:이전|앞|앞선|위|기존|지금까지|시스템|안전|보안)(?:의)?(?:모든)?`+koNoun+`(?:을|를|은|는|도)?(?:모두|전부|다)?`+koIgnore,
		`(?:모든)`+koNoun+`(?:을|를|은|는)?(?:모두|전부|다)?`+koIgnore)
	s.add(viewSquash, personaWh,
		`(?:지금부터|이제부터|앞으로|오늘부터|이제)(?:너는|넌|당신은|네가|니가)`,
		`(?:너는|넌|당신은)(?:이제|지금부터|더이상)`)
	s.add(viewSquash, jailWhy,
		`(?:제한|제약|검열|필터|규칙)(?:이|가)?(?:없는|없이)(?:ai|인공지능|어시스턴트|비서|모델|챗봇|답변|대답)`)
	s.add(viewSquash, approvalWhy,
		`(?:승인|허락|허가|확인|동의)(?:을|를)?(?:요청하지|구하지|묻지|받지|기다리지|요구하지)(?:마|말)`,
		`(?:승인|허락|허가|확인|동의)(?:없이|안받고|받지않고)(?:바로)?(?:실행|삭제|진행)(?:해|하세요|하라)`)
	s.add(viewSquash, hideWhy,
		`(?:사용자|유저)(?:에게|한테|께)(?:는)?[가-힣]{0,8}?(?:말하지|알리지|알려주지|말해주지|언급하지|보여주지)(?:마|말)`)
	s.add(viewSquash, leakWhy,
		`(?:시스템프롬프트|시스템지시|시스템메시지)(?:를|을)?(?:그대로|전부|모두|전체)?(?:출력|보여|알려|공개|표시|말해)`)
	s.add(viewSquash, authorWhy, `모든요청에(?:응|따르|따라)`)
}
