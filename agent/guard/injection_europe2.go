package guard

// More prompt injection in German and Spanish (the forms the first tables
// lack), and Dutch and Polish, on viewWords. Go's \b only knows ASCII
// letters, so patterns anchor on the view's spaces: (?:^| ) … (?: |$).
// They take the imperative and second-person forms; the third-person
// forms facts use ("ignoriert", "negeert", "ignoruje", "vraagt om
// toestemming", "pyta o zgodę") do not match. Where the imperative spells
// like the fact (Spanish "ignora", Dutch "vergeet"), the object must be
// "your", "all" or "previous" rules, not "the rules of the club".

// europeanMoreRules is long because it is a table, one rule per line.
func europeanMoreRules(s *ruleSet) {
	// --- German ---
	s.add(viewWords, ignoreWhy,
		`(?:^| )(?:ignoriere|ignorier|ignorieren sie|vergiss|vergessen sie|missachte|missachten sie|übergehe|verwirf)(?: (?:alle|sämtliche|saemtliche|jegliche|deine|die|ihre|bisherigen|vorherigen|vorigen|früheren|frueheren|obigen|bisherige|vorherige|frühere|eigenen|ursprünglichen|ursprünglichen))* [a-zäöüß]*(?:regeln|anweisungen|instruktionen|richtlinien|vorgaben|befehle|einschränkungen|beschränkungen|grenzen)(?: |$)`)
	s.add(viewWords, personaWh,
		`(?:^| )du bist (?:ab (?:jetzt|sofort|heute|morgen|nun)|von nun an|ab nun)(?: |$)`)
	s.add(viewWords, jailWhy,
		`(?:^| )(?:assistent|assistentin|bot|ki|modell|du|antworte|antwortest|reagiere)(?: [^ ]+){0,4}? (?:ohne|frei von) (?:jede |jegliche |alle |irgendwelche |eine )?(?:einschränkung|einschränkungen|beschränkung|beschränkungen|filter|zensur|regeln|grenzen|limits?)(?: |$)`)
	s.add(viewWords, approvalWhy,
		`(?:^| )(?:führe|fuehre|mach|mache|lösche|loesche|starte|installiere|erledige|lauf|lasse)(?: [^ ]+){0,6}? ohne (?:rückfrage|rueckfrage|nachfrage|bestätigung|bestaetigung|erlaubnis|zustimmung|freigabe|genehmigung|zu fragen|nachzufragen)(?: |$)`)
	s.add(viewWords, hideWhy,
		`(?:^| )(?:halte|halt|verheimliche|verberge|verbirg|verschweige)(?: [^ ]+){0,4}? vor (?:dem|den) (?:nutzer|benutzer|anwender|user|nutzern|benutzern)(?: |$)`,
		`(?:^| )erwähne (?:sie |es |das |dies |ihn |diese notiz |diese anweisung )?(?:niemals|nie|nicht)(?: |$)`)
	s.add(viewWords, leakWhy,
		`(?:^| )(?:gib|zeig|zeige|verrate|nenne|wiederhole|drucke|liste)(?: [^ ]+){0,5}? (?:deine|deinen|ihre|ihren)(?: [^ ]+)? (?:systemanweisungen|systemprompt|systemprompts|anweisungen|instruktionen|systemnachricht|vorgaben)(?: [^ ]+){0,2}? (?:aus|wörtlich|woertlich|preis|auf)(?: |$)`)
	s.add(viewWords, authorWhy,
		`(?:^| )(?:befolge|befolgen sie|gehorche|folge)(?: [^ ]+){0,3}? nur (?:noch )?(?:anweisungen|befehle|was|die anweisungen|dieser|diese)(?: |$)`)

	// --- Spanish ---
	const esRules = `(?:normas|reglas|instrucciones|indicaciones|órdenes|ordenes|directrices|restricciones|pautas)`
	s.add(viewWords, ignoreWhy,
		`(?:^| )(?:haz|hagan|haga) caso omiso (?:de|a) (?:todas |todos )?(?:las |los |tus |sus )?`+esRules+`(?: |$)`,
		`(?:^| )no hagas caso (?:de|a) (?:todas |todos )?(?:las |los |tus |sus )`+esRules+`(?: |$)`,
		`(?:^| )(?:ignora|olvida|descarta|omite|olvídate de|olvidate de)(?: (?:todas|todos|las|los|tus|sus))* `+esRules+` (?:que te (?:dio|dieron|han dado|dieron los|dio el|dio la)|anteriores|previas|del sistema|de seguridad|originales|iniciales)(?: |$)`)
	s.add(viewWords, personaWh,
		`(?:^| )(?:de ahora en adelante|a partir de ahora|desde ahora|a partir de hoy|desde hoy|de aquí en adelante|de aqui en adelante)(?: [^ ]+)?? (?:eres|serás|seras|actúa|actua|actúas|actuas|responde|responderás|finge|te llamas|actuarás|actuaras)(?: |$)`)
	s.add(viewWords, jailWhy,
		`(?:^| )(?:asistente|ia|bot|modelo|eres|actúa|actua|responde|contesta)(?: [^ ]+){0,4}? (?:sin|libre de) (?:ninguna |ningún |ningun |toda |cualquier |ningunas )?(?:restricción|restriccion|restricciones|límite|limite|límites|limites|filtro|filtros|censura|reglas|normas)(?: |$)`)
	s.add(viewWords, approvalWhy,
		`(?:^| )(?:ejecuta|ejecute|borra|elimina|instala|haz|corre|lanza)(?: [^ ]+){0,6}? sin (?:pedir|pedirle|pedirles|solicitar|preguntar|esperar)(?: [^ ]+){0,2}? (?:permiso|confirmación|confirmacion|autorización|autorizacion|aprobación|aprobacion)(?: |$)`,
		`(?:^| )(?:ejecuta|ejecute|borra|elimina|instala|corre|lanza)(?: [^ ]+){0,6}? sin (?:confirmación|confirmacion|permiso|autorización|autorizacion|preguntar)(?: |$)`)
	s.add(viewWords, hideWhy,
		`(?:^| )no (?:le |les )?(?:digas|cuentes|reveles|menciones|muestres|comentes)(?: [^ ]+){0,4}? al usuario(?: |$)`)
	s.add(viewWords, leakWhy,
		`(?:^| )(?:muéstrame|muestrame|muestra|revela|revélame|revelame|dime|imprime|repite|enséñame|ensename)(?: [^ ]+){0,2}? (?:tus|las|el|tu) (?:instrucciones|indicaciones|prompt|reglas)(?: [^ ]+)? (?:ocultas|del sistema|de sistema|secretas|originales|internas|iniciales)(?: |$)`)
	s.add(viewWords, authorWhy, `(?:^| )(?:obedéceme|obedeceme|obedécenos|obedecenos|obedece solo|obedece solamente)(?: |$)`)

	// --- Dutch ---
	const nlRules = `[a-z]*(?:regels|instructies|instructie|richtlijnen|opdrachten|aanwijzingen|voorschriften|beperkingen|prompt)`
	s.add(viewWords, ignoreWhy,
		`(?:^| )(?:negeer|vergeet|veronachtzaam|omzeil|verwerp)(?: (?:al|de|het))* (?:alle|je|jouw|uw|eerdere|vorige|voorgaande|oorspronkelijke|bovenstaande|systeem)(?: (?:de|eerdere|vorige|voorgaande|oorspronkelijke|bovenstaande|eigen|huidige))* `+nlRules+`(?: |$)`)
	s.add(viewWords, personaWh,
		`(?:^| )(?:je bent|jij bent|u bent) (?:nu|voortaan|vanaf nu|vanaf vandaag|niet langer|niet meer)(?: |$)`,
		`(?:^| )(?:vanaf nu|voortaan|vanaf vandaag|van nu af aan|per direct|vanaf heden)(?: [^ ]+)?? (?:ben je|ben jij|bent u|gedraag je|doe je alsof|speel je|heet je)(?: |$)`)
	s.add(viewWords, jailWhy,
		`(?:^| )(?:assistent|bot|ai|model|je|jij|antwoord|antwoorden|reageer)(?: [^ ]+){0,4}? (?:zonder|vrij van) (?:enige |alle |welke |enkele )?(?:beperkingen|beperking|restricties|filters|filter|censuur|regels|grenzen)(?: |$)`,
		`(?:^| )(?:je|jij|u) (?:hebt|heeft|hebben) (?:geen|nu geen) (?:regels|beperkingen|filters|grenzen|restricties)(?: |$)`)
	s.add(viewWords, approvalWhy,
		`(?:^| )vraag (?:nooit|niet|geen)(?: meer)?(?: [^ ]+){0,3}? (?:om )?(?:toestemming|bevestiging|goedkeuring|akkoord)(?: |$)`,
		`(?:^| )(?:voer|doe|verwijder|installeer|start|draai)(?: [^ ]+){0,6}? zonder(?: [^ ]+){0,3}? (?:toestemming|bevestiging|goedkeuring|te vragen|overleg)(?: |$)`)
	s.add(viewWords, hideWhy,
		`(?:^| )(?:vertel|zeg|meld|toon|laat)(?: [^ ]+)? (?:de gebruiker|aan de gebruiker|de gebruikers)(?: [^ ]+){0,3}? (?:niets|niks|niet|nooit|geen)(?: |$)`,
		`(?:^| )(?:vertel|zeg|meld) (?:niets|niks|nooit iets|geen woord) (?:tegen|aan) (?:de gebruiker|de gebruikers)(?: |$)`,
		`(?:^| )(?:verberg|verzwijg|verstop)(?: [^ ]+){0,4}? voor de gebruiker(?: |$)`)
	s.add(viewWords, leakWhy,
		`(?:^| )(?:laat|toon|geef|herhaal|print|onthul)(?: [^ ]+){0,4}? (?:je|jouw|uw|de) (?:systeemprompt|systeeminstructies|verborgen instructies|oorspronkelijke instructies|systeembericht)(?: |$)`)
	s.add(viewWords, authorWhy,
		`(?:^| )(?:gehoorzaam|volg)(?: voortaan| vanaf nu| nu)? (?:alleen|enkel|uitsluitend|nog maar)(?: [^ ]+){0,3}? (?:wat|deze|de instructies|deze notitie|mij)(?: |$)`)

	// --- Polish ---
	const plRules = `(?:instrukcje|instrukcji|instrukcjach|instrukcjami|zasady|zasad|zasadach|zasadami|reguły|reguł|regul|reguly|polecenia|poleceń|polecen|wytyczne|wytycznych|ograniczenia|ograniczeń|ograniczen|ograniczeniach|prompt|wskazówki|wskazowki)`
	s.add(viewWords, ignoreWhy,
		`(?:^| )(?:zignoruj|zignorujcie|ignoruj|zapomnij|zapomnijcie|pomiń|pomin|odrzuć|odrzuc|lekceważ|lekcewaz|nie zwracaj uwagi na|nie stosuj się do|nie stosuj sie do)(?: o)?(?: (?:wszystkie|wszystkich|wszelkie|wszelkich|swoje|swoich|twoje|twoich|poprzednie|poprzednich|wcześniejsze|wczesniejsze|wcześniejszych|wczesniejszych|dotychczasowe|dotychczasowych|otrzymane|systemowe|te|tych))* `+plRules+`(?: |$)`)
	s.add(viewWords, personaWh,
		`(?:^| )(?:od teraz|od dziś|od dzis|od dzisiaj|od tej chwili|odtąd|odtad|od tej pory|od jutra)(?: [^ ]+)?? (?:jesteś|jestes|będziesz|bedziesz|działasz|dzialasz|udawaj|zachowuj się|zachowuj sie|odpowiadaj|nazywasz się|nazywasz sie)(?: |$)`,
		`(?:^| )(?:jesteś|jestes) (?:teraz|już|juz|odtąd|odtad)(?: |$)`,
		`(?:^| )(?:nie jesteś|nie jestes) (?:już|juz)(?: |$)`)
	s.add(viewWords, jailWhy,
		`(?:^| )(?:asystent[^ ]*|bot[^ ]*|ai|ia|model[^ ]*|jesteś|jestes|odpowiadaj|działaj|dzialaj|odpowiadasz)(?: [^ ]+){0,4}? bez (?:żadnych |zadnych |jakichkolwiek |wszelkich )?(?:ograniczeń|ograniczen|zasad|reguł|regul|filtrów|filtrow|cenzury|limitów|limitow)(?: |$)`)
	s.add(viewWords, approvalWhy,
		`(?:^| )(?:nigdy )?nie (?:pytaj|proś|pros|czekaj na|zabiegaj o)(?: [^ ]+){0,3}? (?:o )?(?:zgodę|zgode|pozwolenie|potwierdzenie|akceptację|akceptacje|zatwierdzenie|zezwolenie)(?: |$)`,
		`(?:^| )(?:wykonuj|wykonaj|uruchamiaj|uruchom|usuwaj|usuń|usun|instaluj|zainstaluj|rób|rob)(?: [^ ]+){0,5}? bez (?:pytania|pytań|pytan|zgody|potwierdzenia|pozwolenia|akceptacji)(?: |$)`)
	s.add(viewWords, hideWhy,
		`(?:^| )nie (?:mów|mow|informuj|wspominaj|pokazuj|zdradzaj|ujawniaj)(?: [^ ]+)? (?:użytkownikowi|uzytkownikowi|użytkownikom|uzytkownikom)(?: |$)`,
		`(?:^| )(?:ukryj|ukrywaj|zataj|zatajaj)(?: [^ ]+){0,3}? przed (?:użytkownikiem|uzytkownikiem|użytkownikami|uzytkownikami)(?: |$)`)
	s.add(viewWords, leakWhy,
		`(?:^| )(?:pokaż|pokaz|wyświetl|wyswietl|ujawnij|podaj|wypisz|powtórz|powtorz|wydrukuj|zdradź|zdradz)(?: [^ ]+){0,3}? (?:prompt systemowy|systemowy prompt|instrukcje systemowe|ukryte instrukcje|swoje instrukcje|twoje instrukcje|swój prompt|swoj prompt|twój prompt|twoj prompt)(?: |$)`)
	s.add(viewWords, authorWhy,
		`(?:^| )(?:słuchaj|sluchaj|wykonuj|przestrzegaj|stosuj się do|stosuj sie do) (?:tylko|wyłącznie|wylacznie|jedynie)(?: |$)`)
}
