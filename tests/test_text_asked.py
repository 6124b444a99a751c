"""What a question asks for, and whether an answer gives it (text/asked.py): small hand-made cases."""

from ragchain_cli.text.asked import gives, kind


def test_the_opening_question_word_says_what_is_asked():
    assert kind("How many rooms does the inn have?") == "number"
    assert kind("How much flour goes into the scones?") == "number"
    assert kind("In what year did the mill close?") == "time"
    assert kind("When is the craft fair held?") == "time"
    assert kind("Why was the pool closed?") == "cause"
    assert kind("Who repaired the church clock?") == "who"
    assert kind("I lost my key. Who can open the lab?") == "who"  # the last sentence asks
    assert kind("Which firm is installing the battery bank?") == "organisation"
    assert kind("What company built it?") == "organisation"
    assert kind("What family is the panda a part of?") == ""  # a family of animals is nobody
    assert kind("When the ferry stops, which service runs?") == ""  # "when" opens a clause, "which" asks
    assert kind("What is the inn called?") == "" and kind("Is the inn open?") == ""
    assert kind("How long is the bridge?") == ""
    assert kind("How much does a day ticket cost?") == "price" and kind("How much did the roof repair cost?") == "price"
    assert kind("How much time does the crossing take?") == "number"  # no word of paying
    assert kind("How often is the buoy visited?") == "frequency" and kind("How frequently is it checked?") == "frequency"


def test_an_answer_gives_the_kind_however_briefly():
    assert gives("Twelve rooms [1].", "How many rooms does the inn have?", "number")
    assert gives("About 4,000 people.", "How many people live in the town?", "number")
    assert not gives("The inn has rooms above the bar.", "How many rooms does the inn have?", "number")
    assert gives("On the first Saturday of December.", "When is the fair held?", "time")
    assert gives("In 1890.", "When was the bridge built?", "time")
    assert not gives("The fair is held in the village hall.", "When is the fair held?", "time")
    assert gives("The last boat leaves at 16:10.", "When does the last boat leave?", "time")
    assert not gives("A 30 kWh battery is installed next to the inverters.", "When is the battery installed?", "time")
    assert gives("Because the roof was unsafe.", "Why was the pool closed?", "cause")
    assert gives("To protect the nesting birds.", "Why is the inlet closed?", "cause")
    assert not gives("The pool was closed in 2019.", "Why was the pool closed?", "cause")
    assert gives("It closed due to a leaking roof.", "Why was the pool closed?", "cause")
    assert not gives("The panels face due south.", "Why are the panels tilted?", "cause")
    assert gives("Ellen Marsh repaired it.", "Who repaired the clock?", "who")
    assert gives("It was built by the county.", "Who built the bridge?", "who")  # a passive's agent
    assert gives("Lead miners cut them.", "Who cut the tunnels?", "who")
    assert not gives("The clock was repaired in 1987.", "Who repaired the clock?", "who")
    assert not gives("The Kittiwake winch was serviced last week.", "Who serviced the Kittiwake winch?", "who")
    assert gives("Anything at all.", "What is the inn called?", "")


def test_a_price_is_money_or_a_bare_number_and_a_time_is_nobody_s():
    price = "How much does a day ticket cost?"
    assert gives("A day ticket costs 12 euros.", price, "price") and gives("It costs €4.50 on board.", price, "price")
    assert gives("It costs 12 on board.", price, "price")  # a bare number may be the price
    assert gives("Children travel free.", price, "price")
    assert not gives("A day ticket costs about twenty minutes.", price, "price")  # a number of minutes is no price
    assert not gives("Day tickets are sold on board.", price, "price")
    assert gives("It cost 38,400 including installation.", price, "price")  # a number of no other unit
    assert not gives("The old pier burned in the winter of 2019-20.", price, "price")  # a year is no price
    assert not gives("The ticket office is 40 metres from the pier.", price, "price")
    when = "When does the last weekday boat leave?"
    assert not gives("Staff should plan their days accordingly.", when, "time")  # nobody's days are a time
    assert gives("It leaves in the late afternoon.", when, "time") and gives("It leaves every day at dusk.", when, "time")


def test_a_frequency_is_a_rate_not_a_number():
    often = "How often is the buoy visited?"
    assert gives("Every two weeks during the season.", often, "frequency")
    assert gives("Twice a month.", often, "frequency") and gives("It is checked weekly.", often, "frequency")
    assert gives("Three trips a year.", often, "frequency")
    assert not gives("Two people visit it with the Kittiwake.", often, "frequency")  # a count is no rate
    assert not gives("It is visited by the station's technicians.", often, "frequency")


def test_a_firm_is_named_not_an_agent_noun():
    firm = "Which firm is installing the battery bank?"
    assert gives("Vossberg Electric is installing it.", firm, "organisation")
    assert gives("A local builder is installing it.", firm, "organisation")
    assert not gives("The firm is installing it next to the inverters.", firm, "organisation")  # "inverters" is no one

