package guard

import "regexp"

// Prompt injection in Spanish, Portuguese, Italian, French and German, on
// viewWords (lower-case, punctuation gone: "l'utente" reads "l utente").
// Go's \b only knows ASCII letters, so patterns that start or end next to
// an accented letter anchor on the spaces of the view instead: (?:^| ).

// europeanRules is long because it is a table, one rule per line.
func europeanRules(s *ruleSet) {
	// --- Spanish, German, French (the first tables) ---
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
	// "An assistant without restrictions", in all five.
	s.add(viewWords, jailWhy,
		`(?:^| )(?:assistente|asistente|assistant|assistent|ia|ki|ai|modelo|modello|modèle|modele|bot|você|voce|tu|eres|sei|bist|es|sé|sois|seja|sii)(?: [^ ]+){0,3}? (?:sem|sin|senza|sans|ohne) (?:aucune |aucun |qualsiasi |alcuna |ninguna |jegliche |nenhuma |nenhum |alguna )?(?:restrições|restricoes|restricciones|restrizioni|restriction|restrictions|einschränkungen|einschraenkungen|beschränkungen|limites|límites|limiti|grenzen|filtros|filtri|filtres|filtre|filter|censura|censure|zensur|regras|reglas|regole|règles|regeln)(?: |$)`)

	// Not asking for approval, in all five.
	s.add(viewWords, approvalWhy,
		`(?:^| )(?:nunca|não|nao|no)(?: [^ ]+)? (?:peça|peca|pede|peças|solicite|pergunte|pidas|pida|solicites|preguntes|esperes|espere)(?: [^ ]+){0,2}? (?:aprovação|aprovacao|permissão|permissao|confirmação|confirmacao|autorização|autorizacao|aprobación|aprobacion|permiso|confirmación|confirmacion|autorización|autorizacion)(?: |$)`,
		`(?:^| )(?:non|mai)(?: [^ ]+){0,2}? (?:chiedere|chiedi|domandare|domanda|aspettare|aspettate|attendere)(?: [^ ]+){0,2}? (?:l )?(?:approvazione|permesso|conferma|autorizzazione|consenso)(?: |$)`,
		// French "ne demande jamais l'autorisation" is also the third
		// person (a fact about the user's boss): only before an action.
		`(?:^| )(?:ne|n) (?:demande|demandez|attends|attendez|sollicite) (?:jamais|pas|plus)(?: [^ ]+){0,2}? (?:l )?(?:autorisation|approbation|permission|confirmation|accord|validation)(?: [^ ]+){0,3}? (?:avant d|avant de|pour) (?:exécuter|executer|lancer|supprimer|agir|pousser|déployer|deployer|installer|modifier|effacer)`,
		`(?:^| )(?:frag|frage|fragen sie|hol|hole|warte|warten sie)(?: [^ ]+){0,2}? (?:niemals|nie|nicht|nicht mehr|keine)(?: [^ ]+){0,2}? (?:um |auf )?(?:erlaubnis|zustimmung|bestätigung|bestaetigung|freigabe|genehmigung)(?: |$)`,
	)
	// Hiding things from the user.
	s.add(viewWords, hideWhy,
		`(?:^| )(?:não|nao) (?:conte|diga|fale|mostre|revele|mencione)(?: [^ ]+){0,2}? (?:ao|aos|para o|a o) (?:usuário|usuario|utilizador|usuários|usuarios)(?: |$)`,
		`(?:^| )non (?:dire|dirlo|raccontare|rivelare|menzionare|mostrare|dirgli|dirle)(?: [^ ]+)? (?:all utente|agli utenti|all utilizzatore)(?: |$)`,
		`(?:^| )(?:erzähl|erzähle|erzaehl|sag|sage|verrat|verrate|zeig|zeige)(?: es)? (?:dem|den) (?:benutzer|nutzer|anwender|user|benutzern|nutzern)(?: [^ ]+)? (?:nichts|nicht|kein wort)(?: |$)`,
		`(?:^| )ne (?:dis|dites|montre|montrez|révèle|revele|mentionne|mentionnez) (?:rien |pas |jamais )?(?:à|a) l utilisateur(?: |$)`,
	)
	// Forgetting what was said before.
	s.add(viewWords, ignoreWhy,
		`(?:^| )(?:olvida|olvidad|olvide|olvídate|olvidate) (?:todo|todas las cosas) (?:lo )?que (?:te|se te|le) (?:dijeron|dije|han dicho|indicaron|ordenaron|pidieron)(?: |$)`,
		// Portuguese and Italian: the third person ("ignora as regras do
		// futebol") spells like the imperative, so the object must be
		// "all", "your" or "previous" ones.
		`(?:^| )(?:ignore|ignora|ignorar|esqueça|esqueca|esqueçam|desconsidere|desconsidera|despreze|descarte)(?: (?:todas|todos))?(?: (?:as|os))? (?:suas|seus|tuas|teus) (?:instruções|instrucoes|regras|diretrizes|orientações|orientacoes|ordens|restrições|restricoes)(?: |$)`,
		`(?:^| )(?:ignore|ignora|ignorar|esqueça|esqueca|esqueçam|desconsidere|desconsidera|despreze|descarte) (?:todas|todos) (?:as |os )?(?:instruções|instrucoes|regras|diretrizes|orientações|orientacoes|ordens|restrições|restricoes)(?: |$)`,
		`(?:^| )(?:ignore|ignora|ignorar|esqueça|esqueca|esqueçam|desconsidere|desconsidera|despreze|descarte)(?: (?:todas|todos|as|os))* (?:instruções|instrucoes|regras|diretrizes|orientações|orientacoes|ordens|restrições|restricoes) (?:anteriores|do sistema|de segurança|de seguranca|originais|prévias|previas)(?: |$)`,
		`(?:^| )(?:ignora|ignorate|dimentica|dimenticate|trascura|scarta)(?: (?:tutte|tutti))?(?: (?:le|i|gli))? (?:tue|tuoi|vostre|vostri) (?:istruzioni|regole|indicazioni|direttive|restrizioni|ordini)(?: |$)`,
		`(?:^| )(?:ignora|ignorate|dimentica|dimenticate|trascura|scarta) (?:tutte|tutti) (?:le |i |gli )?(?:istruzioni|regole|indicazioni|direttive|restrizioni|ordini)(?: |$)`,
		`(?:^| )(?:ignora|ignorate|dimentica|dimenticate|trascura|scarta)(?: (?:tutte|tutti|le|i|gli))* (?:istruzioni|regole|indicazioni|direttive|restrizioni|ordini) (?:precedenti|di sicurezza|del sistema|di sistema|originali)(?: |$)`,
		`(?:^| )(?:vergiss|vergessen sie|ignoriere|ignorier) alles(?: [^ ]+){0,2}? (?:was|das)(?: [^ ]+){0,3}? (?:gesagt|befohlen|aufgetragen|vorgegeben|erklärt|erklaert|beigebracht)(?: |$)`,
		`(?:^| )(?:ignoriere|ignorier|ignorieren sie|vergiss|vergessen sie|missachte)(?: (?:alle|deine|die|ihre|bisherigen|vorherigen))* [a-zäöüß]*(?:regeln|anweisungen|richtlinien|vorgaben)(?: |$)`,
		`(?:^| )(?:ignore|oublie|ignorez|oubliez) (?:tes|vos|les|toutes les|tous les) (?:[^ ]+ )?(?:règles|regles|consignes|instructions|restrictions) (?:de sécurité|de securite|précédentes|precedentes|du système|du systeme)(?: |$)`,
	)
	// Persona switches.
	s.add(viewWords, personaWh,
		`(?:^| )(?:a partir de agora|de agora em diante|doravante|daqui em diante|a partir de hoje)(?: [^ ]+)?? (?:você|voce|tu) (?:é|e|será|sera|és|vai ser|age|agirá|agira)(?: |$)`,
		`(?:^| )(?:você|voce) (?:agora é|agora e|não é mais|nao e mais)(?: |$)`,
		`(?:^| )(?:da ora in poi|d ora in poi|da adesso in poi|d ora in avanti|a partire da ora|da oggi in poi|da oggi)(?: [^ ]+)?? (?:sei|tu sei|sarai|agisci|comportati)(?: |$)`,
		`(?:^| )(?:eres|serás|seras) (?:un|una) [^ ]+(?: [^ ]+){0,3}? (?:a partir de (?:hoy|ahora)|desde ahora|de ahora en adelante)(?: |$)`,
		`(?:^| )(?:ab sofort|ab jetzt|von nun an|ab heute) (?:bist du|bist|sind sie)(?: |$)`,
	)
	// Revealing the system prompt.
	s.add(viewWords, leakWhy,
		`(?:^| )(?:mostre|mostra|mostrami|revele|rivela|imprima|stampa|ripeti|repita|diga|dimmi)(?: [^ ]+){0,3}? (?:prompt de sistema|prompt do sistema|instruções do sistema|instrucoes do sistema|prompt di sistema|istruzioni di sistema|messaggio di sistema)(?: |$)`,
		`(?:^| )(?:affiche|affichez|montre|montrez|révèle|revele|répète|repete|imprime|donne moi|dis moi)(?: [^ ]+){0,3}? (?:ton|votre|le|tes|vos) (?:prompt système|prompt systeme|message système|message systeme|instructions système|instructions systeme|instructions cachées|consignes système)(?: |$)`,
		`(?:^| )(?:gib|zeig|zeige|verrate|nenne|wiederhole|drucke)(?: [^ ]+){0,5}? (?:deinen|deine|den|die|ihren|ihre) (?:systemprompt|system prompt|systemanweisungen|systemnachricht)(?: |$)`,
	)
	// "Obey": an imperative no fact about the user needs.
	s.add(viewWords, authorWhy, `(?:^| )(?:obbedisci|obbedite|obedeça|obedeca|obedeçam|obedece|obedezca|obéis|obeis|obéissez|obeissez|gehorche|gehorchen sie)(?: |$)`)
}
